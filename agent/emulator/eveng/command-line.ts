/**
 * The command-line settings of the EVE-NG backend. The password never comes
 * from the command line (it would show in `ps`): it is read from the
 * EVE_NG_PASSWORD environment variable or from --emu-password-file.
 */
import { readFileSync } from 'node:fs';
import { isFingerprint } from '../../../common/api/tls';
import type { EveNgSettings } from './eveng-backend';

export const EVE_NG_PASSWORD_ENV = 'EVE_NG_PASSWORD';

export const EVE_NG_USAGE = `  --emu-url URL         EVE-NG server, https://host[:port] (eve-ng)
  --emu-user NAME       EVE-NG service account (eve-ng); its password comes
                        from $${EVE_NG_PASSWORD_ENV} or --emu-password-file
  --emu-password-file F file holding the service account's password
  --emu-ca FILE         PEM CA certificate that signed the server's certificate
  --emu-fingerprint FP  SHA-256 fingerprint of the server's certificate (pin)
  --emu-allow-http      accept a plain http:// --emu-url (password in clear)
  --record DIR          write every exchange with EVE-NG to DIR (redacted)
`;

export const EVE_NG_FLAGS = {
  'emu-url': { type: 'string' },
  'emu-user': { type: 'string' },
  'emu-password-file': { type: 'string' },
  'emu-ca': { type: 'string' },
  'emu-fingerprint': { type: 'string' },
  'emu-allow-http': { type: 'boolean' },
  record: { type: 'string' },
} as const;

type FlagValues = { emulator?: string } & {
  [K in keyof typeof EVE_NG_FLAGS]?: (typeof EVE_NG_FLAGS)[K]['type'] extends 'boolean' ? boolean : string;
};

const readText = (flag: string, file: string): string => {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`${flag}: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}).`, {
      cause: e,
    });
  }
};

/** The EVE-NG settings of `--emulator eve-ng` (undefined for other emulators); throws an Error saying what to fix. */
export function eveNgFromFlags(values: FlagValues, env: NodeJS.ProcessEnv): EveNgSettings | undefined {
  const eveOnly = (
    ['emu-url', 'emu-user', 'emu-password-file', 'emu-ca', 'emu-fingerprint', 'emu-allow-http', 'record'] as const
  ).filter((f) => values[f] !== undefined);
  if (values.emulator !== 'eve-ng') {
    if (eveOnly.length) throw new Error(`--${eveOnly[0]} needs --emulator eve-ng.`);
    return undefined;
  }
  if (!values['emu-url']) throw new Error('--emulator eve-ng needs --emu-url https://your-eve-ng-server.');
  if (!values['emu-user'])
    throw new Error("--emulator eve-ng needs --emu-user NAME (a service account, not a person's).");
  const password = values['emu-password-file']
    ? readText('--emu-password-file', values['emu-password-file']).replace(/\r?\n$/, '')
    : env[EVE_NG_PASSWORD_ENV];
  if (!password)
    throw new Error(
      `The EVE-NG password is missing: set ${EVE_NG_PASSWORD_ENV} or pass --emu-password-file (never on the command line).`,
    );
  const fingerprint = values['emu-fingerprint'];
  if (fingerprint !== undefined && !isFingerprint(fingerprint))
    throw new Error('--emu-fingerprint must be a SHA-256 fingerprint: 64 hex digits, colons optional.');
  return {
    url: values['emu-url'],
    username: values['emu-user'],
    password,
    ...(values['emu-ca'] ? { ca: readText('--emu-ca', values['emu-ca']) } : {}),
    ...(fingerprint ? { fingerprint } : {}),
    allowHttp: values['emu-allow-http'] ?? false,
    ...(values.record ? { recordDir: values.record } : {}),
  };
}
