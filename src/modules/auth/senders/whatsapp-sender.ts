import { Config } from '../../../config';
import { answeredOk, KeptAlivePoster } from '../../../common/kept-alive-poster';
import { MessageSender } from '../../../common/message-sender';

/**
 * WhatsApp Cloud API: an authentication template whose body and copy-code button both carry
 * the code. POST {apiUrl}/{phoneNumberId}/messages with a bearer access token, over kept-alive
 * connections as the notifications' (common/kept-alive-poster.ts), within WHATSAPP_TIMEOUT_MS.
 */
export class WhatsAppSender implements MessageSender {
  private readonly poster = new KeptAlivePoster(() => this.config.timeoutMs);

  constructor(private readonly config: Config['whatsapp']) {}

  async sendCode(phoneNumber: string, code: string): Promise<void> {
    const url = `${this.config.apiUrl.replace(/\/+$/, '')}/${encodeURIComponent(this.config.phoneNumberId)}/messages`;
    const response = await this.poster.post(
      url,
      { authorization: `Bearer ${this.config.accessToken}`, 'content-type': 'application/json' },
      JSON.stringify(this.templateMessage(phoneNumber, code)),
    );
    if (!answeredOk(response)) {
      // The provider's answer names the problem (bad template, expired token); never the code.
      throw new Error(`WhatsApp API answered ${response.status}: ${response.text.slice(0, 500)}`);
    }
  }

  private templateMessage(phoneNumber: string, code: string) {
    return {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: phoneNumber.replace(/^\+/, ''),
      type: 'template',
      template: {
        name: this.config.templateName,
        language: { code: this.config.templateLanguage },
        components: [
          { type: 'body', parameters: [{ type: 'text', text: code }] },
          { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: code }] },
        ],
      },
    };
  }
}
