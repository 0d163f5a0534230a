/**
 * A package Citadel needs only for some configurations (a database driver, the Redis client) is
 * an optional peer dependency: missing, it stops start-up with one line naming what to install.
 */
export class MissingDependencyError extends Error {
  constructor(
    readonly packageName: string,
    purpose: string,
  ) {
    super(`${purpose} needs the "${packageName}" package: npm install ${packageName}`);
    this.name = 'MissingDependencyError';
  }
}

/** Import an optional package, turning "not installed" into a MissingDependencyError. */
export async function importOptional<T>(
  packageName: string,
  purpose: string,
  load: () => Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: string }).code;
    const message = (error as { message?: string }).message ?? '';
    const missing =
      (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && message.includes(packageName);
    if (missing) throw new MissingDependencyError(packageName, purpose);
    throw error;
  }
}
