/** The harms a post is checked for. */
export enum Harm {
  Spam = 'spam',
  Harassment = 'harassment',
  Hate = 'hate',
  PersonalData = 'personal_data',
}
