// A real SMTP server in the test process (smtp-server) that parses what it receives (mailparser), so tests
// assert the message a user would get. `refuse` makes it answer 550 to every recipient.

import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface SmtpSink {
  url: string;
  port: number;
  mails: ParsedMail[];
  /** Resolves with the next mail received (or one already waiting). */
  next(): Promise<ParsedMail>;
  refuse: boolean;
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const mails: ParsedMail[] = [];
  const waiters: Array<(m: ParsedMail) => void> = [];
  let taken = 0;
  const sink: SmtpSink = {
    url: '',
    port: 0,
    mails,
    refuse: false,
    next: () =>
      new Promise((resolve) => {
        if (taken < mails.length) resolve(mails[taken++]);
        else waiters.push(resolve);
      }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, cb) {
      if (sink.refuse) {
        const err = new Error(`mailbox ${address.address} unavailable`) as Error & { responseCode: number };
        err.responseCode = 550;
        return cb(err);
      }
      cb();
    },
    onData(stream, _session, cb) {
      simpleParser(stream)
        .then((mail) => {
          mails.push(mail);
          const w = waiters.shift();
          if (w) {
            taken++;
            w(mail);
          }
          cb();
        })
        .catch((err: Error) => cb(err));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  sink.port = (server.server.address() as AddressInfo).port;
  sink.url = `smtp://127.0.0.1:${sink.port}`;
  return sink;
}
