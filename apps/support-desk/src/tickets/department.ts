/** The teams a ticket can go to. */
export enum Department {
  Billing = 'billing',
  Technical = 'technical',
  Account = 'account',
}
