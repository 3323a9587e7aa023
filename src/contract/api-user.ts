/** An API user id: exactly nine ASCII digits (`\d` without the `u` flag is `[0-9]`). As JSON Schema: `.source`. */
export const API_USER_ID = /^\d{9}$/;

/** The rule in words, after the name of what breaks it: `apiUser: must be exactly 9 digits`. */
export const API_USER_ID_RULE = 'must be exactly 9 digits';
