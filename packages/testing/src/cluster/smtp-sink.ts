/** The local cluster's mail catcher: `smtp-sink.ts <port> <dir>` writes each e-mail as `<dir>/*.eml`. */
import { startSmtpSink } from '../smtp-sink';

const [port, dir] = process.argv.slice(2);
if (!port || !dir) throw new Error('usage: smtp-sink.ts <port> <dir>');
void startSmtpSink(Number(port), dir).then(() => console.log(`smtp sink on 127.0.0.1:${port}, mail in ${dir}`));
