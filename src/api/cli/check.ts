import type { CitadelOptions } from '../../config/types.ts';
import { loadConfig } from '../../config/load.ts';
import { openDatabase } from '../../db/open.ts';
import { compileApi } from '../resource/compile.ts';
import { checkIndexes, formatIndexReport } from '../read/index-check.ts';

/**
 * `citadel check [--strict]`: each declared sortable, filterable and searchable field and each
 * relation key with no usable index on the configured database (as it is: nothing is migrated),
 * with the statement that would add it; declared tables that do not exist yet are named once, with
 * "run citadel migrate first", instead of reporting every column of them. Returns the exit code: 1
 * with `strict` when an index or a table is missing.
 */
export async function runCheck(
  options: CitadelOptions,
  strict: boolean,
  write: (line: string) => void = (line) => console.log(line),
): Promise<number> {
  const config = loadConfig(options);
  if (!config.api) {
    write('no resource API is configured: nothing to check');
    return 0;
  }
  const database = await openDatabase(config.databaseUrl);
  const compiled = compileApi(config.api, database.dialect);
  try {
    const report = await checkIndexes(database.db, database.dialect, compiled.values());
    for (const line of formatIndexReport(report)) write(line);
    const complete = report.missingTables.length === 0;
    if (complete && report.missing.length === 0)
      write(`every declared field and relation key has an index (${compiled.size} resources)`);
    return strict && (!complete || report.missing.length > 0) ? 1 : 0;
  } finally {
    await database.close();
  }
}
