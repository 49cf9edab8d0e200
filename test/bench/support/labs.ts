/** Generated labs as a project holds them: the lab text and the startup configs its nodes name. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AgentClient } from '../../../common/api/client';
import { generateLab } from '../../support/generate-lab';

export interface GeneratedProject {
  yaml: string;
  /** Config path as written in the lab → its text. */
  files: Record<string, string>;
}

export function generatedProject(nodes: number): GeneratedProject {
  const yaml = generateLab(nodes);
  const files: Record<string, string> = {};
  for (const match of yaml.matchAll(/^ {4}config: (\S+)$/gm)) {
    const hostname = /([^/]+)\.cfg$/.exec(match[1])?.[1] ?? 'node';
    files[match[1]] = `hostname ${hostname}\n!\nend\n`;
  }
  return { yaml, files };
}

/** The generated project of `nodes` nodes written into `dir`, its configs beside the lab as in a real project. */
export function writeGeneratedProject(dir: string, nodes: number): { path: string; text: string } {
  const { yaml: text, files } = generatedProject(nodes);
  const path = join(dir, `generated-${nodes}.lab.yaml`);
  writeFileSync(path, text);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return { path, text };
}

/**
 * The project with every image the agent does not offer (as available) for a
 * node's template replaced by that template's default, so that it deploys
 * whatever images the generator and the agent's catalogue happen to name.
 */
export async function fitToAgent(project: GeneratedProject, client: AgentClient): Promise<GeneratedProject> {
  const pairs = new Map<string, string>();
  for (const match of project.yaml.matchAll(/^ {4}template: (\S+)\n {4}image: (\S+)$/gm))
    pairs.set(`${match[1]} ${match[2]}`, match[0]);
  let yaml = project.yaml;
  for (const [key, lines] of pairs) {
    const [template, image] = key.split(' ');
    const data = await client.listTemplateImages({ id: template });
    const offered = (data.images ?? []).some((i) => i.id === image && i.available !== false);
    if (!offered && data.default)
      yaml = yaml.split(lines).join(lines.replace(`image: ${image}`, `image: ${data.default}`));
  }
  return { yaml, files: project.files };
}
