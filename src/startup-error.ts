/** A start-up failure the user can fix (a port in use, a server out of reach): printed as one
 *  line, without a stack. */
export class StartupError extends Error {}
