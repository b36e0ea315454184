/**
 * How an insurer call fails (adapters): REFUSED when the insurer answered that the request itself is
 * wrong (retrying cannot change it; the message carries the insurer's detail), UNAVAILABLE when it
 * could not answer (down, slow, overloaded: the activity's retry policy backs off and tries again).
 */
export const INSURER_REFUSED = 'InsurerRefused';
export const INSURER_UNAVAILABLE = 'InsurerUnavailable';
