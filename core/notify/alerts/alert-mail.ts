// The low-balance mail, in Chinese and English in one message (the account has no language preference).
export function lowBalanceMail(balance: number, threshold: number): { subject: string; text: string } {
  return {
    subject: `余额提醒 / Low balance: ${balance} TOKEN`,
    text:
      `您的 Tollgate 账户余额为 ${balance} TOKEN，已低于您设置的提醒线 ${threshold} TOKEN。余额用完后调用将返回 402，请及时充值。\n\n` +
      `Your Tollgate balance is ${balance} TOKEN, below your alert line of ${threshold} TOKEN. Calls will be refused with 402 ` +
      `once it runs out; please top up.\n`,
  };
}

export function lowQuotaMail(left: number, limit: number, percent: number): { subject: string; text: string } {
  return {
    subject: `套餐额度提醒 / Plan quota: ${left} of ${limit} calls left today`,
    text:
      `您的套餐今日剩余 ${left} 次调用（共 ${limit} 次），已低于 ${percent}%。用完后调用将按次计费。\n\n` +
      `Your plan has ${left} of today's ${limit} calls left, below ${percent}%. Calls beyond the quota are charged per call.\n`,
  };
}
