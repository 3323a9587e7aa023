import type express from 'express';
import { lazy } from '../world/lazy.js';

/**
 * Express, loaded the first time a page, the dashboard or the control API is asked for. Loading it costs more than
 * starting a simulator does, and the simulated API never needs it: an in-process test that opens no page never loads
 * it.
 */
export const expressLib = lazy<typeof express>('express');
