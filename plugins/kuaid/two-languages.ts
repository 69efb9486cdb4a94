// A customer-facing text in both languages: the gateway answers each caller wholly in its own.

export interface TwoLanguages {
  message: string;
  message_zh: string;
}

export const said = (message: string, message_zh: string): TwoLanguages => ({ message, message_zh });
