/** supertest types every answer's body `any`: a test names the answer it reads. */
export const bodyOf = <T>(res: { body: unknown }): T => res.body as T;
