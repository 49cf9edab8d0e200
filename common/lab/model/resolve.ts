/**
 * Applying `defaults`: every node inherits the default of each field it does
 * not set itself.
 */
import { NODE_FIELD_NAMES, type NodeFields, type ResolvedNode } from './types';

export function withDefaults(fields: NodeFields, defaults: NodeFields): ResolvedNode {
  const resolved: Record<string, unknown> = {};
  for (const name of NODE_FIELD_NAMES) {
    const field = fields[name] ?? defaults[name];
    if (field) resolved[name] = field.value;
  }
  return resolved;
}
