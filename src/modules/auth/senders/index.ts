import { Config } from '../../../config';
import { Logger } from '../../../common/logger';
import { LogSender } from './log-sender';
import { MessageSender } from '../../../common/message-sender';
import { WhatsAppSender } from './whatsapp-sender';

export type { MessageSender };

export function createMessageSender(config: Config, logger: Logger): MessageSender {
  return config.otp.sender === 'whatsapp' ? new WhatsAppSender(config.whatsapp) : new LogSender(logger);
}
