import { Logger } from '../../../common/logger';
import { MessageSender } from '../../../common/message-sender';

/**
 * Development only (refused in production by config): writes the code to the log so a
 * developer can sign in without a messaging account. The only place a code is ever logged.
 */
export class LogSender implements MessageSender {
  constructor(private readonly logger: Logger) {}

  sendCode(phoneNumber: string, code: string): Promise<void> {
    this.logger.info({ sender: 'log', phoneNumber, otp: code }, `one-time code for ${phoneNumber}: ${code}`);
    return Promise.resolve();
  }
}
