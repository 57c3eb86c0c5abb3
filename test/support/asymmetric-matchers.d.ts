// @types/jest types the asymmetric matchers (`expect.any(String)`, `expect.stringMatching(…)`, …) as
// returning `any`, so every expected object that holds one is an unsafe `any` assignment to the linter.
// These overloads come first in the merged interface (a later declaration's members are tried first) and
// return jest's own AsymmetricMatcher type instead: the same calls, typed. Included by tsconfig.json
// through test/**/*.ts, so it holds for every test the root project checks. The reference puts @types/jest
// ahead of this file in the program, which is what makes these overloads the later, first-tried ones.
/// <reference types="jest" />
declare namespace jest {
  interface Expect {
    anything(): AsymmetricMatcher;
    any(classType: unknown): AsymmetricMatcher;
    arrayContaining<E = unknown>(arr: readonly E[]): AsymmetricMatcher;
    objectContaining<E = object>(obj: E): AsymmetricMatcher;
    stringMatching(str: string | RegExp): AsymmetricMatcher;
    stringContaining(str: string): AsymmetricMatcher;
  }
}
