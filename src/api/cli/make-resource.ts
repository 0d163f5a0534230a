/** `citadel make:resource <name>`: built in the resource API issue. */
export async function makeResource(_name: string, _dir: string): Promise<void> {
  throw new Error('make:resource is not available yet');
}
