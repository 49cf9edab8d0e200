/**
 * The seccomp deny-list every user-controlled process of a node runs under
 * (defence in depth behind the user namespace and the frr user): the system
 * calls that change mounts or namespaces, load kernel code, trace or read
 * other processes, or touch machine-wide state answer EPERM; everything else
 * is allowed. The program is classic BPF (struct sock_filter, 8 bytes per
 * instruction), handed to bubblewrap's `--seccomp FD`, which loads it with
 * no_new_privs just before it executes the node's program. It is written here
 * rather than compiled with libseccomp because a deny-list is a few dozen
 * comparisons and this needs no native module or build step.
 */

/** The new mount API: numbered alike on every architecture (the kernel's tables are unified from 424 on). */
const UNIFIED = {
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  mount_setattr: 442,
};

/** Syscall numbers of the deny-list per architecture (from the kernel's syscall tables). */
const DENIED: Record<'x64' | 'arm64', Record<string, number>> = {
  x64: {
    ptrace: 101,
    syslog: 103,
    uselib: 134,
    pivot_root: 155,
    adjtimex: 159,
    acct: 163,
    settimeofday: 164,
    mount: 165,
    umount2: 166,
    swapon: 167,
    swapoff: 168,
    reboot: 169,
    iopl: 172,
    ioperm: 173,
    create_module: 174,
    init_module: 175,
    delete_module: 176,
    quotactl: 179,
    clock_settime: 227,
    kexec_load: 246,
    add_key: 248,
    request_key: 249,
    keyctl: 250,
    unshare: 272,
    perf_event_open: 298,
    name_to_handle_at: 303,
    open_by_handle_at: 304,
    clock_adjtime: 305,
    setns: 308,
    process_vm_readv: 310,
    process_vm_writev: 311,
    kcmp: 312,
    finit_module: 313,
    kexec_file_load: 320,
    bpf: 321,
    userfaultfd: 323,
    ...UNIFIED,
  },
  arm64: {
    acct: 89,
    quotactl: 60,
    umount2: 39,
    mount: 40,
    pivot_root: 41,
    unshare: 97,
    kexec_load: 104,
    init_module: 105,
    delete_module: 106,
    clock_settime: 112,
    syslog: 116,
    ptrace: 117,
    reboot: 142,
    settimeofday: 170,
    adjtimex: 171,
    add_key: 217,
    request_key: 218,
    keyctl: 219,
    swapon: 224,
    swapoff: 225,
    perf_event_open: 241,
    name_to_handle_at: 264,
    open_by_handle_at: 265,
    clock_adjtime: 266,
    setns: 268,
    process_vm_readv: 270,
    process_vm_writev: 271,
    kcmp: 272,
    finit_module: 273,
    bpf: 280,
    userfaultfd: 282,
    kexec_file_load: 294,
    ...UNIFIED,
  },
};
/** clone and clone3 per architecture: clone may not make namespaces; clone3 (flags behind a pointer) says ENOSYS so libc falls back to clone. */
const CLONE = { x64: { clone: 56, clone3: 435 }, arm64: { clone: 220, clone3: 435 } };
/** AUDIT_ARCH_* of each architecture: a call made through another ABI (i386 on x86_64) is refused. */
const AUDIT_ARCH = { x64: 0xc000003e, arm64: 0xc00000b7 };
/** x86_64's x32 ABI marks its numbers with this bit: refused as a whole. */
const X32_SYSCALL_BIT = 0x40000000;
/** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET (clone's low byte is the exit signal). */
const CLONE_NAMESPACE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;
/** Offsets in struct seccomp_data. */
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16;

type Target = 'next' | 'deny' | 'enosys' | 'allow';
interface Instruction {
  code: number;
  k: number;
  jt?: Target;
  jf?: Target;
  label?: Exclude<Target, 'next'>;
}

export function seccompSupported(arch: string = process.arch): arch is 'x64' | 'arm64' {
  return arch === 'x64' || arch === 'arm64';
}

/** The deny-list as a BPF program for bubblewrap's `--seccomp` (the machine's own architecture). */
export function denyListProgram(arch: string = process.arch): Buffer {
  if (!seccompSupported(arch)) throw new Error(`no seccomp deny-list for the ${arch} architecture`);
  const program: Instruction[] = [
    { code: LD_W_ABS, k: ARCH },
    { code: JEQ_K, k: AUDIT_ARCH[arch], jt: 'next', jf: 'deny' },
    { code: LD_W_ABS, k: NR },
    ...(arch === 'x64' ? [{ code: JGE_K, k: X32_SYSCALL_BIT, jt: 'deny', jf: 'next' } as Instruction] : []),
    ...Object.values(DENIED[arch]).map((nr): Instruction => ({ code: JEQ_K, k: nr, jt: 'deny', jf: 'next' })),
    { code: JEQ_K, k: CLONE[arch].clone3, jt: 'enosys', jf: 'next' },
    { code: JEQ_K, k: CLONE[arch].clone, jt: 'next', jf: 'allow' },
    { code: LD_W_ABS, k: ARG0_LOW },
    { code: JSET_K, k: CLONE_NAMESPACE_FLAGS, jt: 'deny', jf: 'allow' },
    { code: RET_K, k: RET_ALLOW, label: 'allow' },
    { code: RET_K, k: RET_ERRNO | EPERM, label: 'deny' },
    { code: RET_K, k: RET_ERRNO | ENOSYS, label: 'enosys' },
  ];
  const at = (label: Target): number => program.findIndex((i) => i.label === label);
  const out = Buffer.alloc(program.length * 8);
  program.forEach((instruction, index) => {
    const offset = (target: Target | undefined): number => {
      if (target === undefined || target === 'next') return 0;
      const distance = at(target) - index - 1;
      if (distance < 0 || distance > 255) throw new Error(`seccomp jump out of range at ${index}`);
      return distance;
    };
    out.writeUInt16LE(instruction.code, index * 8);
    out.writeUInt8(offset(instruction.jt), index * 8 + 2);
    out.writeUInt8(offset(instruction.jf), index * 8 + 3);
    out.writeUInt32LE(instruction.k >>> 0, index * 8 + 4);
  });
  return out;
}
