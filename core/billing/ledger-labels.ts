// What a customer reads about one ledger row, in both languages. The ledger's `note` is the operator's text: an
// admin's free-text reason with "(by admin N)", "provider refused the refund", "trial credit", the CLI's reason.
// It stays in the row for the admin views, the audit and the exports; the customer's own ledger shows a label
// naming where the money came from or went instead, and keeps the note only where the note was written for the
// customer (the name of the package, plan or redeem code bought). docs/billing.md "Ledger notes" says why.
// Pure data and functions, no imports.

export interface LedgerLabel {
  zh: string;
  en: string;
}

interface LabelledRow {
  kind: string;
  ref: string;
  amount: number;
}

const L = (zh: string, en: string): LedgerLabel => ({ zh, en });

const LABELS = {
  charge: L('调用扣费', 'Call charge'),
  topup: L('充值', 'Top-up'),
  trial: L('注册赠送', 'Sign-up credit'),
  supportCredit: L('客服赠送', 'Credit from support'),
  supportDebit: L('客服扣减', 'Deduction by support'),
  refund: L('退款', 'Refund'),
  orderRefund: L('订单退款', 'Order refund'),
  refundReversed: L('退款撤回', 'Refund reversed'),
  plan: L('套餐赠送', 'Plan bonus'),
  package: L('充值包', 'Package'),
  redeem: L('兑换码', 'Redeem code'),
  adjustment: L('调整', 'Adjustment'),
  other: L('其他', 'Other'),
} as const;

/**
 * The label of a row, read from its kind and its ref (the ref says who wrote the row: `grant:` and `cli:` an
 * operator, `debit:` and `refund:<time>` an admin's adjustment, `refund:RF…` an order refund, `trial:` sign-up).
 */
export function ledgerLabel(row: LabelledRow): LedgerLabel {
  const { kind, ref } = row;
  if (kind === 'charge') return LABELS.charge;
  if (kind === 'plan_grant') return LABELS.plan;
  if (kind === 'package') return LABELS.package;
  if (kind === 'redeem') return LABELS.redeem;
  if (kind === 'topup') return LABELS.topup;
  if (ref.startsWith('trial:')) return LABELS.trial;
  if (ref.startsWith('refund-reversal:')) return LABELS.refundReversed;
  // An order refund takes back the TOKEN the refunded order bought; an admin's refund gives TOKEN back.
  if (ref.startsWith('refund:RF')) return LABELS.orderRefund;
  if (kind === 'refund') return LABELS.refund;
  if (kind === 'grant') return LABELS.supportCredit;
  if (kind === 'adjustment') return row.amount < 0 ? LABELS.supportDebit : LABELS.adjustment;
  return LABELS.other;
}

/** The note as the customer may read it: the bought item's name; an operator's note is not theirs to read. */
export function customerNote(row: { kind: string; note: string | null }): string | null {
  return row.kind === 'package' || row.kind === 'plan_grant' || row.kind === 'redeem' ? row.note : null;
}
