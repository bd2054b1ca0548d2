/** Who resolves a Review: `{ type, id }`, or a TypeORM entity (type = the entity's name, id = its primary key). */
export type Reviewer = { readonly type: string; readonly id: string | number } | object;
