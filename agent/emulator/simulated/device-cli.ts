/**
 * The command line a simulated node runs on its console: enough of IOS, a
 * Linux shell and VPCS to look at a node (version, interfaces, config) and to
 * get realistic errors for anything else.
 */
import type { DeviceStyle } from './catalogue';

export interface DeviceInterface {
  name: string;
  /** Attached to a network. */
  connected: boolean;
  /** The far end is up (a running peer node, or a network). */
  peerUp: boolean;
}

/** What the CLI knows about the node it runs on, read fresh for every command. */
export interface DeviceView {
  hostname: string;
  style: DeviceStyle;
  platform: string;
  template: string;
  image: string;
  ram: number;
  uptimeMs: number;
  config?: string;
  interfaces: DeviceInterface[];
}

const CRLF = '\r\n';

export function promptOf(view: DeviceView): string {
  switch (view.style) {
    case 'linux':
      return `root@${view.hostname}:~# `;
    case 'vpcs':
      return 'VPCS> ';
    default:
      return `${view.hostname}#`;
  }
}

/** Runs one command line; returns its output with CRLF line ends (the prompt is not included). */
export function runDeviceCommand(view: DeviceView, line: string): string {
  const text = line.trim();
  if (!text) return '';
  switch (view.style) {
    case 'linux':
      return withCrlf(runShell(view, text));
    case 'vpcs':
      return withCrlf(runVpcs(view, text));
    default:
      return withCrlf(runIos(view, line));
  }
}

function withCrlf(lines: string[]): string {
  return lines.length ? lines.join(CRLF) + CRLF : '';
}

// ------------------------------------------------------------------ IOS style

interface IosCommand {
  words: string[];
  help: string;
  run(view: DeviceView): string[];
}

const IOS_COMMANDS: IosCommand[] = [
  { words: ['show', 'version'], help: 'System hardware and software status', run: iosVersion },
  { words: ['show', 'interfaces'], help: 'Interface status and configuration', run: iosInterfaces },
  {
    words: ['show', 'ip', 'interface', 'brief'],
    help: 'Brief summary of IP status and configuration',
    run: iosInterfaceBrief,
  },
  { words: ['show', 'running-config'], help: 'Current operating configuration', run: iosRunningConfig },
  { words: ['show', 'clock'], help: 'Display the system clock', run: () => [`*${new Date().toUTCString()}`] },
  { words: ['enable'], help: 'Turn on privileged commands', run: () => [] },
  { words: ['terminal', 'length', '0'], help: 'Set number of lines on a screen', run: () => [] },
  { words: ['ping'], help: 'Send echo messages', run: () => ['% Incomplete command.'] },
];

function runIos(view: DeviceView, line: string): string[] {
  const text = line.trim();
  if (text === '?' || text === 'help' || text.endsWith(' ?')) return iosHelp(text);

  const tokens: { word: string; column: number }[] = [];
  const re = /\S+/g;
  for (let m = re.exec(line); m; m = re.exec(line)) tokens.push({ word: m[0], column: m.index });

  let candidates = IOS_COMMANDS;
  for (let i = 0; i < tokens.length; i++) {
    const word = tokens[i].word.toLowerCase();
    const matching = candidates.filter((c) => i < c.words.length && c.words[i].startsWith(word));
    const exact = matching.filter((c) => c.words[i] === word);
    const next = exact.length ? exact : matching;
    const distinctWords = new Set(next.map((c) => c.words[i]));
    if (next.length === 0) return invalidInput(view, tokens[i].column);
    if (distinctWords.size > 1) return [`% Ambiguous command:  "${text}"`];
    candidates = next;
  }
  const complete = candidates.find((c) => c.words.length === tokens.length);
  return complete ? complete.run(view) : ['% Incomplete command.', ''];
}

function invalidInput(view: DeviceView, column: number): string[] {
  return [`${' '.repeat(promptOf(view).length + column)}^`, "% Invalid input detected at '^' marker.", ''];
}

function iosHelp(text: string): string[] {
  const prefix = text.replace(/\?$/, '').trim().split(/\s+/).filter(Boolean);
  const level = prefix.length;
  const entries = new Map<string, string>();
  for (const c of IOS_COMMANDS) {
    if (c.words.length <= level || !prefix.every((w, i) => c.words[i].startsWith(w.toLowerCase()))) continue;
    if (!entries.has(c.words[level]))
      entries.set(c.words[level], level === c.words.length - 1 ? c.help : `${c.words[level]} commands`);
  }
  if (!entries.size) return ['% Unrecognized command'];
  const width = Math.max(...[...entries.keys()].map((k) => k.length)) + 2;
  return [...entries].map(([word, help]) => `  ${word.padEnd(width)}${help}`);
}

function uptimeText(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  const hours = Math.floor(minutes / 60);
  return hours
    ? `${hours} hour${hours === 1 ? '' : 's'}, ${minutes % 60} minutes`
    : `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/** The release an image file name encodes, written the way the device prints it (15.9(3)M6, 17.03.04a, …). */
function releaseOf(image: string): string {
  const ios = /\.(\d)(\d)(\d)-(\d+)\.(\w+)$/.exec(image);
  if (ios) return `${ios[1]}${ios[2]}.${ios[3]}(${ios[4]})${ios[5]}`;
  const iol = /_(\d)(\d)(\d)_(\d+)_/.exec(image);
  if (iol) return `${iol[1]}${iol[2]}.${iol[3]}(${iol[4]})`;
  const dashed = /-(\d+)-(\d+)-(\d+)$/.exec(image);
  if (dashed) return `${dashed[1]}.${dashed[2]}(${dashed[3]})`;
  const dotted = /[-_.](\d+\.\d+[\w.]*?)(?:\.bin)?$/.exec(image);
  return dotted ? dotted[1] : image || 'unknown';
}

function iosVersion(view: DeviceView): string[] {
  const release = releaseOf(view.image);
  return [
    `${view.platform}, Version ${release}, RELEASE SOFTWARE (fc1)`,
    'Technical Support: http://www.cisco.com/techsupport',
    'Copyright (c) 1986-2023 by Cisco Systems, Inc.',
    '',
    `ROM: Bootstrap program is ${view.template.toUpperCase()}`,
    '',
    `${view.hostname} uptime is ${uptimeText(view.uptimeMs)}`,
    'System returned to ROM by reload',
    `System image file is "flash0:/${view.image || view.template}"`,
    '',
    `Cisco ${view.template.toUpperCase()} (revision 1.0) with ${view.ram * 1024 - 65536}K/65536K bytes of memory.`,
    `${view.interfaces.length} Gigabit Ethernet interfaces`,
    'DRAM configuration is 72 bits wide with parity disabled.',
    '256K bytes of non-volatile configuration memory.',
    '',
    'Configuration register is 0x2102',
  ];
}

function lineState(i: DeviceInterface): { status: string; protocol: string } {
  if (!i.connected) return { status: 'administratively down', protocol: 'down' };
  return { status: 'up', protocol: i.peerUp ? 'up' : 'down' };
}

function iosInterfaces(view: DeviceView): string[] {
  return view.interfaces.flatMap((i, index) => {
    const { status, protocol } = lineState(i);
    const mac = `5000.00${index.toString(16).padStart(2, '0')}.0000`;
    return [
      `${i.name} is ${status}, line protocol is ${protocol}`,
      `  Hardware is iGbE, address is ${mac} (bia ${mac})`,
      '  MTU 1500 bytes, BW 1000000 Kbit/sec, DLY 10 usec,',
      '     reliability 255/255, txload 1/255, rxload 1/255',
      '  Encapsulation ARPA, loopback not set',
      `  Full Duplex, Auto Speed, link type is auto, media type is RJ45`,
      '     0 packets input, 0 bytes, 0 no buffer',
      '     0 packets output, 0 bytes, 0 underruns',
    ];
  });
}

function iosInterfaceBrief(view: DeviceView): string[] {
  const width = Math.max(27, ...view.interfaces.map((i) => i.name.length + 1));
  return [
    `${'Interface'.padEnd(width)}${'IP-Address'.padEnd(16)}OK? Method Status                Protocol`,
    ...view.interfaces.map((i) => {
      const { status, protocol } = lineState(i);
      return `${i.name.padEnd(width)}${'unassigned'.padEnd(16)}YES unset  ${status.padEnd(22)}${protocol}`;
    }),
  ];
}

function iosRunningConfig(view: DeviceView): string[] {
  if (view.config)
    return ['Building configuration...', '', 'Current configuration:', ...view.config.split(/\r?\n/), 'end'];
  return [
    'Building configuration...',
    '',
    'Current configuration:',
    '!',
    `hostname ${view.hostname}`,
    '!',
    ...view.interfaces.flatMap((i) => [
      `interface ${i.name}`,
      ' no ip address',
      ...(i.connected ? [] : [' shutdown']),
      '!',
    ]),
    'end',
  ];
}

// ------------------------------------------------------------------ Linux shell

const SHELL_COMMANDS: Record<string, (view: DeviceView, args: string[]) => string[]> = {
  hostname: (view) => [view.hostname],
  whoami: () => ['root'],
  uname: (view, args) =>
    args.includes('-a')
      ? [`Linux ${view.hostname} 5.15.0-91-generic #101-Ubuntu SMP x86_64 x86_64 x86_64 GNU/Linux`]
      : ['Linux'],
  uptime: (view) => [` up ${uptimeText(view.uptimeMs)},  1 user,  load average: 0.00, 0.00, 0.00`],
  cat: (view, args) =>
    args[0] === '/etc/os-release'
      ? [`PRETTY_NAME="${view.platform}"`, 'NAME="Ubuntu"', 'VERSION_ID="22.04"', 'ID=ubuntu']
      : [`cat: ${args[0] ?? ''}: No such file or directory`],
  ip: (view, args) =>
    ['a', 'addr', 'address', 'l', 'link'].includes(args[0] ?? '')
      ? linuxLinks(view)
      : ['Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }'],
  help: () => ['Commands: hostname, whoami, uname [-a], uptime, cat /etc/os-release, ip addr, ip link, help'],
};

function runShell(view: DeviceView, text: string): string[] {
  const [command, ...args] = text.split(/\s+/);
  const run = SHELL_COMMANDS[command];
  if (run) return run(view, args);
  return [`-bash: ${command}: command not found`];
}

function linuxLinks(view: DeviceView): string[] {
  return [
    '1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000',
    '    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00',
    ...view.interfaces.flatMap((i, index) => {
      const up = i.connected && i.peerUp;
      return [
        `${index + 2}: ${i.name}: <BROADCAST,MULTICAST,UP${up ? ',LOWER_UP' : ''}> mtu 1500 qdisc fq_codel state ${up ? 'UP' : 'DOWN'} mode DEFAULT group default qlen 1000`,
        `    link/ether 50:00:00:00:${index.toString(16).padStart(2, '0')}:00 brd ff:ff:ff:ff:ff:ff`,
      ];
    }),
  ];
}

// ------------------------------------------------------------------ VPCS

function runVpcs(view: DeviceView, text: string): string[] {
  const words = text.toLowerCase().split(/\s+/);
  if (words[0] === '?' || words[0] === 'help') {
    return [
      '?                        Print help',
      'show [arp|ip|version]    Print the information of VPCs',
      'version                  Shows version',
      "ip ARG ... [OPTION]      Configure the current VPC's IP settings",
    ];
  }
  if (words[0] === 'version' || (words[0] === 'show' && words[1] === 'version')) {
    return [
      '',
      `Welcome to Virtual PC Simulator, version 0.8.1`,
      'Dedicated to Daling.',
      'Build time: Sep  9 2015 11:15:00',
      '',
    ];
  }
  if (words[0] === 'show' && (words[1] === 'ip' || words[1] === undefined)) {
    const iface = view.interfaces[0];
    return [
      '',
      `NAME        : ${view.hostname}[1]`,
      'IP/MASK     : 0.0.0.0/0',
      'GATEWAY     : 0.0.0.0',
      'DNS         : ',
      'MAC         : 00:50:79:66:68:00',
      `LINK        : ${iface?.connected ? 'up' : 'down'}`,
      '',
    ];
  }
  return [`Bad command: "${text}". Use ? for help.`];
}
