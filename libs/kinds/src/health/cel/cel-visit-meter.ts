import { celMap, type CelInput, type CelValue } from '@bufbuild/cel';

/** CelBudgetExceeded is an evaluation stopped at its budget: the rule judges the object Failed, saying so. */
export class CelBudgetExceeded extends Error {
  readonly code = 'HealthRuleOverBudget';
  constructor(readonly budget: number) {
    super(`visited more than ${budget} list items and map keys, its budget for one object; it was stopped`);
    this.name = 'CelBudgetExceeded';
  }
}

// @bufbuild/cel recognises its lists by this global symbol; implementing it lets a list count its reads.
const celListMark = Symbol.for('@bufbuild/cel/list');

/**
 * CelVisitMeter counts the elements and keys one evaluation visits, across every list and map of
 * the object: a comprehension reads its range through these, so nested ones count every step.
 * Past the budget each visit throws, which ends the evaluation where it stands (the CEL library
 * turns the throw into an error, and `exceeded` stays set for the caller to read).
 */
export class CelVisitMeter {
  private visits = 0;
  exceeded = false;

  constructor(readonly budget: number) {}

  visit(): void {
    this.visits += 1;
    if (this.visits > this.budget) {
      this.exceeded = true;
      throw new CelBudgetExceeded(this.budget);
    }
  }

  /** list wraps converted elements in a CEL list that counts each element it yields. */
  list(items: readonly CelInput[]): CelInput {
    return new CountedList(items as readonly CelValue[], this) as unknown as CelInput;
  }

  /** map wraps converted entries in a CEL map that counts each key or entry it yields. */
  map(entries: ReadonlyArray<[string, CelInput]>): CelInput {
    return celMap(new CountedMap(entries, this));
  }
}

class CountedList {
  readonly [celListMark] = {};

  constructor(private readonly items: readonly CelValue[], private readonly meter: CelVisitMeter) {}

  get size(): number {
    return this.items.length;
  }

  get(index: number): CelValue | undefined {
    return index >= 0 && index < this.items.length ? this.items[index] : undefined;
  }

  *values(): IterableIterator<CelValue> {
    for (const item of this.items) {
      this.meter.visit();
      yield item;
    }
  }

  [Symbol.iterator](): IterableIterator<CelValue> {
    return this.values();
  }
}

class CountedMap extends Map<string, CelInput> {
  constructor(entries: ReadonlyArray<[string, CelInput]>, private readonly meter: CelVisitMeter) {
    super(entries);
  }

  override *keys(): MapIterator<string> {
    for (const key of super.keys()) {
      this.meter.visit();
      yield key;
    }
  }

  override *values(): MapIterator<CelInput> {
    for (const value of super.values()) {
      this.meter.visit();
      yield value;
    }
  }

  override *entries(): MapIterator<[string, CelInput]> {
    for (const entry of super.entries()) {
      this.meter.visit();
      yield entry;
    }
  }

  override [Symbol.iterator](): MapIterator<[string, CelInput]> {
    return this.entries();
  }
}
