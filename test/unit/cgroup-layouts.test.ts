/**
 * The node cgroups of the Linux emulator in both layouts, against trees of plain files shaped
 * like cgroupfs: what the agent writes where, and how a node's processes join, are found and
 * are killed. The v1 layout also runs for real in test/linux/; the v2 layout cannot run on
 * this project's machines (nor on CI, the same kind): they are hybrid, with pids, memory and
 * cpu bound to v1 hierarchies, and a controller serves one hierarchy at a time, so the v2
 * tree (/sys/fs/cgroup/unified, or a cgroup2 mounted afresh in a private mount namespace,
 * which is the same hierarchy) offers only hugetlb and refuses `+pids` in
 * cgroup.subtree_control. Moving the controllers to v2 would mean unmounting the v1
 * hierarchies under every other process on the machine. So v2 is checked here, on files.
 *
 * What a tree of files cannot show (the kernel's part): that the limits act, that rmdir
 * removes a cgroup whose control files are still listed, that cgroup.kill kills.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detectCgroups, NodeCgroups } from '../../agent/emulator/linux/cgroup';

const NAME = 'lab-abcdef-0123-n1';
const LIMITS = { pids: 256, memoryMiB: 64, cpus: 0.5 };

/** A folder for the test `t`, removed when it ends, however it ends. */
function tempDir(t: TestContext, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A v2 tree as stock Debian 12 mounts it: one hierarchy, every controller available at the root. */
function v2Tree(t: TestContext): string {
  const root = tempDir(t, 'cgroup-v2-');
  writeFileSync(join(root, 'cgroup.controllers'), 'cpuset cpu io memory hugetlb pids rdma misc\n');
  writeFileSync(join(root, 'cgroup.subtree_control'), 'cpu\n');
  return root;
}

/** A hybrid v1 tree as on this machine: a hierarchy per controller, no cgroup.controllers at the top. */
function v1Tree(t: TestContext): string {
  const root = tempDir(t, 'cgroup-v1-');
  for (const controller of ['pids', 'memory', 'cpu']) {
    mkdirSync(join(root, controller));
    writeFileSync(join(root, controller, 'cgroup.procs'), '1\n');
  }
  return root;
}

const read = (...path: string[]) => readFileSync(join(...path), 'utf8');

test('the layout is told apart: v2 with its controllers, v2 missing one, v1 hierarchies, neither', (t) => {
  const v2 = v2Tree(t);
  const v1 = v1Tree(t);
  const empty = tempDir(t, 'cgroup-none-');
  assert.equal(detectCgroups(v2), 2);
  assert.equal(detectCgroups(v1), 1);
  // This machine's unified tree: only hugetlb is on v2.
  writeFileSync(join(v2, 'cgroup.controllers'), 'hugetlb\n');
  assert.equal(detectCgroups(v2), 'cgroup v2 lacks the pids, memory, cpu controller(s)');
  assert.match(String(detectCgroups(empty)), /no cgroup v2 tree and no cgroup v1 hierarchy for pids, memory, cpu/);
});

test('v2: one directory at the root, the controllers handed down to it, limits in v2 files', async (t) => {
  const root = v2Tree(t);
  const cgroups = new NodeCgroups(2, root);
  // cgroupfs makes these when the directory is made; a plain tree needs them before create().
  mkdirSync(join(root, NAME));
  writeFileSync(join(root, NAME, 'memory.swap.max'), 'max\n');
  await cgroups.create(NAME, LIMITS);

  assert.equal(read(root, 'cgroup.subtree_control'), '+pids +memory', 'cpu was enabled already');
  assert.equal(read(root, NAME, 'pids.max'), '256');
  assert.equal(read(root, NAME, 'memory.max'), String(64 * 1024 * 1024));
  assert.equal(read(root, NAME, 'memory.swap.max'), '0', 'no swap beyond memory.max');
  assert.equal(read(root, NAME, 'cpu.max'), '50000 100000');
  assert.equal(cgroups.exists(NAME), true);
  assert.deepEqual(cgroups.list('lab-abcdef-'), [NAME]);
  assert.deepEqual(cgroups.list('lab-other-'), []);
});

test('v2: a root that may not hand controllers down is a clear error', async (t) => {
  const root = v2Tree(t);
  // A control file that reads but refuses writes, as the kernel's EBUSY does in a cgroup holding processes.
  rmSync(join(root, 'cgroup.subtree_control'));
  symlinkSync('/proc/version', join(root, 'cgroup.subtree_control'));
  await assert.rejects(
    new NodeCgroups(2, root).create(NAME, LIMITS),
    /cannot enable the pids, memory, cpu controller\(s\) in .*cgroup\.subtree_control \(.+\): on cgroup v2 the agent makes node cgroups at the root of the tree/,
  );
});

test('v2: a program started through joinArgv writes its own pid into the one cgroup.procs before it runs', async (t) => {
  const root = v2Tree(t);
  const cgroups = new NodeCgroups(2, root);
  mkdirSync(join(root, NAME));
  writeFileSync(join(root, NAME, 'cgroup.procs'), '');
  const [file, ...args] = cgroups.joinArgv(NAME, ['sh', '-c', 'echo $$']);
  const run = spawnSync(file, args, { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(read(root, NAME, 'cgroup.procs').trim(), run.stdout.trim(), 'the program is the pid that joined');
  assert.deepEqual(cgroups.members(NAME), [Number(run.stdout)]);

  // A cgroup.procs that cannot be written: the program does not run outside its cgroup.
  rmSync(join(root, NAME), { recursive: true });
  const [file2, ...args2] = cgroups.joinArgv(NAME, ['sh', '-c', 'echo ran']);
  const refused = spawnSync(file2, args2, { encoding: 'utf8' });
  assert.equal(refused.status, 125);
  assert.equal(refused.stdout, '');
});

test('v2: kill writes cgroup.kill and waits until the cgroup is empty', async (t) => {
  const root = v2Tree(t);
  const member = spawn('sleep', ['60'], { stdio: 'ignore' });
  t.after(() => member.kill('SIGKILL'));
  const cgroups = new NodeCgroups(2, root);
  mkdirSync(join(root, NAME));
  writeFileSync(join(root, NAME, 'cgroup.procs'), `${member.pid}\n`);
  writeFileSync(join(root, NAME, 'cgroup.kill'), '');
  // The kernel's part: a 1 in cgroup.kill kills every member, which then leave cgroup.procs.
  let killedByFile = false;
  const kernel = setInterval(() => {
    if (read(root, NAME, 'cgroup.kill') !== '1') return;
    killedByFile = true;
    member.kill('SIGKILL');
    writeFileSync(join(root, NAME, 'cgroup.procs'), '');
  }, 2);
  await cgroups.kill(NAME);
  clearInterval(kernel);
  assert.equal(killedByFile, true, 'killed through cgroup.kill');
  assert.deepEqual(cgroups.members(NAME), []);
});

test('v1: a directory per controller, limits in v1 files, joinArgv writes every cgroup.procs', async (t) => {
  const root = v1Tree(t);
  const cgroups = new NodeCgroups(1, root);
  for (const controller of ['pids', 'memory', 'cpu']) mkdirSync(join(root, controller, NAME));
  writeFileSync(join(root, 'memory', NAME, 'memory.memsw.limit_in_bytes'), '');
  await cgroups.create(NAME, LIMITS);
  assert.equal(read(root, 'pids', NAME, 'pids.max'), '256');
  assert.equal(read(root, 'memory', NAME, 'memory.limit_in_bytes'), String(64 * 1024 * 1024));
  assert.equal(read(root, 'memory', NAME, 'memory.memsw.limit_in_bytes'), String(64 * 1024 * 1024));
  assert.equal(read(root, 'cpu', NAME, 'cpu.cfs_period_us'), '100000');
  assert.equal(read(root, 'cpu', NAME, 'cpu.cfs_quota_us'), '50000');
  assert.deepEqual(cgroups.list('lab-abcdef-'), [NAME]);

  const [file, ...args] = cgroups.joinArgv(NAME, ['sh', '-c', 'echo $$']);
  const run = spawnSync(file, args, { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  for (const controller of ['pids', 'memory', 'cpu'])
    assert.equal(read(root, controller, NAME, 'cgroup.procs').trim(), run.stdout.trim(), controller);
});
