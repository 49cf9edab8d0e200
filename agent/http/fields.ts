/**
 * Typed reads of request body fields. A present field of the wrong type is a
 * 400 invalid_request naming the field; absent fields are undefined (the
 * contract gives no field a serialized default).
 */
import { invalidRequest } from './api-error';

export type Body = Record<string, unknown>;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

export function optionalString(body: Body, field: string): string | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidRequest(`"${field}" must be a string, not ${describe(value)}.`);
  return value;
}

export function requiredString(body: Body, field: string, hint = ''): string {
  const value = optionalString(body, field);
  if (value === undefined || value === '') throw invalidRequest(`"${field}" is required${hint ? `: ${hint}` : '.'}`);
  return value;
}

export function optionalBoolean(body: Body, field: string): boolean | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw invalidRequest(`"${field}" must be true or false, not ${describe(value)}.`);
  return value;
}

export function optionalInteger(body: Body, field: string): number | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value))
    throw invalidRequest(`"${field}" must be an integer, not ${describe(value)}.`);
  return value;
}

export function optionalStringMap(body: Body, field: string): Record<string, string> | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidRequest(`"${field}" must be an object of strings, not ${describe(value)}.`);
  }
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry !== 'string') throw invalidRequest(`"${field}.${key}" must be a string, not ${describe(entry)}.`);
  }
  return value as Record<string, string>;
}

export function optionalObject(body: Body, field: string): Record<string, unknown> | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw invalidRequest(`"${field}" must be an object, not ${describe(value)}.`);
  return value as Record<string, unknown>;
}

/** `dir` and `out` name local folders, which the agent never touches: non-empty values are refused. */
export function rejectLocalPaths(body: Body): void {
  for (const field of ['dir', 'out']) {
    const value = optionalString(body, field);
    if (value)
      throw invalidRequest(
        `"${field}" is not supported by this agent: it does not read or write local folders. Send the document in "yaml" and its files in "files" instead.`,
      );
  }
}
