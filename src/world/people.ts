import type { Faker } from '@faker-js/faker';
import { lazy } from '../files/lazy.js';

// Only the English locale: the package's main entry loads every locale.
const fakerEn = lazy<{ faker: Faker }>('@faker-js/faker/locale/en');

/** Sample user e-mails and display names (faker) for the pages a person looks at, seeded per simulator. */
export class People {
  private instance?: Faker;
  private readonly names = new Map<string, string>();

  /** @param seed the simulator's seed; without one, a random base (from the simulator's random source). */
  constructor(private seed: number) {}

  /** The seed (unseeded simulators draw one): everything else here follows from it. */
  state(): number {
    return this.seed;
  }

  restore(seed: number): void {
    this.seed = seed;
    this.names.clear();
  }

  private get faker(): Faker {
    if (!this.instance) {
      const shared = fakerEn().faker;
      // A fresh instance with the same definitions: seeding it changes nothing for anyone else in the process.
      const FakerClass = shared.constructor as new (o: { locale: Faker['rawDefinitions'] }) => Faker;
      this.instance = new FakerClass({ locale: shared.rawDefinitions });
    }
    return this.instance;
  }

  /** `n` sample user e-mails at example.com (a domain that never reaches anyone), the same for the same seed. */
  emails(n: number): string[] {
    const f = this.faker;
    f.seed(this.seed);
    const out = new Set<string>();
    for (let i = 0; out.size < n && i < n * 4; i++)
      out.add(f.internet.email({ provider: 'example.com' }).toLowerCase());
    return [...out];
  }

  /** A display name for a user e-mail: the same name for the same e-mail, all the simulator's life. */
  displayName(user: string): string {
    const known = this.names.get(user);
    if (known) return known;
    const f = this.faker;
    f.seed([this.seed, hash(user.toLowerCase())]);
    const name = f.person.fullName();
    if (this.names.size >= 1000) this.names.clear();
    this.names.set(user, name);
    return name;
  }
}

/** FNV-1a, 32 bits: a stable number for a string. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
