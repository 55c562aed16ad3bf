/** Published path (relative to the package) → source schema. */
export const PUBLISHED: Record<string, string>;
export function copySchemas(root?: string): void;
