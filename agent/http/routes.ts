import { OPERATIONS, type OperationId, type OperationSpec } from '../../common/api/contract';

export interface RouteMatch {
  operationId: OperationId;
  spec: OperationSpec;
  params: Record<string, string>;
}

export type RouteLookup =
  { kind: 'found'; match: RouteMatch } | { kind: 'wrong_method'; allowed: string[] } | { kind: 'not_found' };

interface CompiledRoute {
  operationId: OperationId;
  spec: OperationSpec;
  /** Literal segments, or the parameter name for `{name}` segments. */
  segments: { literal?: string; param?: string }[];
}

/** The route table, built once from the contract's operation table. */
export class RouteTable {
  private readonly routes: CompiledRoute[];

  constructor() {
    this.routes = (Object.keys(OPERATIONS) as OperationId[]).map((operationId) => {
      const spec: OperationSpec = OPERATIONS[operationId];
      const segments = spec.path.split('/').map((s) => {
        const param = /^\{(\w+)\}$/.exec(s);
        return param ? { param: param[1] } : { literal: s };
      });
      return { operationId, spec, segments };
    });
  }

  lookup(method: string, pathname: string): RouteLookup {
    const parts = pathname.split('/');
    const allowed: string[] = [];
    for (const route of this.routes) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      if (route.spec.method === method)
        return { kind: 'found', match: { operationId: route.operationId, spec: route.spec, params } };
      allowed.push(route.spec.method);
    }
    return allowed.length ? { kind: 'wrong_method', allowed } : { kind: 'not_found' };
  }
}

function matchSegments(segments: CompiledRoute['segments'], parts: string[]): Record<string, string> | undefined {
  if (segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const { literal, param } = segments[i];
    if (literal !== undefined) {
      if (literal !== parts[i]) return undefined;
    } else if (param) {
      if (parts[i] === '') return undefined;
      try {
        params[param] = decodeURIComponent(parts[i]);
      } catch {
        return undefined;
      }
    }
  }
  return params;
}
