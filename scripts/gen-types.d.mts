/** The generated file's path (src/schemas/types.gen.ts). */
export const OUTPUT: string;
export const SCHEMA_DIR: string;
/** Every schema file's definitions under one `$defs`, as handed to json-schema-to-typescript. */
export function mergedSchema(dir?: string): { title: string; $defs: Record<string, unknown> };
/** The text of the generated file. */
export function generateTypes(dir?: string): Promise<string>;
