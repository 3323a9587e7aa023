import { Array, Boolean, Integer, Literal, Number, Object, Optional, Record, String, Union } from '@sinclair/typebox';

/**
 * The TypeBox builders the simulator's schemas use, by name. TypeBox's own `Type` namespace holds every builder it
 * has; importing only these lets the bundle leave the rest out, which is parsed at every start-up otherwise.
 */
export const Type = { Array, Boolean, Integer, Literal, Number, Object, Optional, Record, String, Union };
