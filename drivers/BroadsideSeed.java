// broadside's dice for a Java program in dialogue scenarios: the same game on every run.
//
// A student's program places its ships and fires with the JDK's randomness, unseeded, so each
// run of a scenario would play a different game, and a rule that has its occasion in one game
// may have none in the next. broadside seeds that randomness with the scenario's seed, so a
// program gets the same game, and the same verdict on every rule, every time it is graded.
//
// Two halves:
//
// - `premain`, a Java agent (`-javaagent:boot/seed.jar`, loaded before anything of the
//   submission): `new Random()` seeds itself from `seedUniquifier() ^ System.nanoTime()`; the
//   agent rewrites that one call of `System.nanoTime()` in the constructor's code to the
//   constant 0 (`lconst_0`, the same stack effect), so a new `Random`'s seed comes from the
//   uniquifier alone. When the constructor's code is not the one expected (another JDK),
//   nothing is changed.
// - `plant(seed)`, called by the launcher and by the game server before each game's `main`:
//   sets `Random`'s uniquifier and `ThreadLocalRandom`'s seeder from the game's seed, reseeds
//   the generators behind `Math.random()` and `StrictMath.random()`, and forgets the one
//   `Collections.shuffle(list)` made in an earlier game. It needs `--add-opens` of
//   java.base's java.lang, java.util and java.util.concurrent; what it cannot reach it leaves
//   as it is (the game is played, only not seeded there).
//
// Not seeded: `SecureRandom`, a program that seeds its own `Random` from the clock
// (`new Random(System.currentTimeMillis())`), or one that times itself.
package broadside_launch;

import java.io.InputStream;
import java.lang.instrument.ClassDefinition;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Field;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

public final class Seed {
    private Seed() {}

    public static void premain(String args, Instrumentation inst) {
        try {
            byte[] b;
            try (InputStream in = Random.class.getResourceAsStream("Random.class")) {
                if (in == null) {
                    return;
                }
                b = in.readAllBytes();
            }
            int at = constructor(b);
            if (at < 0) {
                return;
            }
            // invokestatic System.nanoTime()J -> lconst_0; nop; nop
            b[at + 4] = 0x09;
            b[at + 5] = 0x00;
            b[at + 6] = 0x00;
            inst.redefineClasses(new ClassDefinition(Random.class, b));
        } catch (Throwable t) {
            // Unseeded, as the JDK runs it: the game is still played.
        }
    }

    /// Where `Random()`'s code is in the class file: `aload_0; invokestatic #a;
    /// invokestatic #b; lxor; invokespecial #c; return` (`this(seedUniquifier() ^
    /// System.nanoTime())`), found exactly once; else -1.
    static int constructor(byte[] b) {
        int found = -1;
        for (int i = 0; i + 12 <= b.length; i++) {
            if ((b[i] & 0xff) == 0x2a && (b[i + 1] & 0xff) == 0xb8 && (b[i + 4] & 0xff) == 0xb8
                    && (b[i + 7] & 0xff) == 0x83 && (b[i + 8] & 0xff) == 0xb7
                    && (b[i + 11] & 0xff) == 0xb1) {
                if (found >= 0) {
                    return -1;
                }
                found = i;
            }
        }
        return found;
    }

    /// The seed in a game's environment line (`{"BROADSIDE_SEED":"123",…}`), or null.
    static String fromJson(String line) {
        String key = "\"BROADSIDE_SEED\":\"";
        int i = line == null ? -1 : line.indexOf(key);
        if (i < 0) {
            return null;
        }
        int start = i + key.length();
        int end = line.indexOf('"', start);
        return end < 0 ? null : line.substring(start, end);
    }

    /// Seeds the JDK's shared randomness for a game with `text` (a decimal seed; anything
    /// else leaves it as it is).
    static void plant(String text) {
        long seed;
        try {
            seed = Long.parseLong(text == null ? "" : text.trim());
        } catch (NumberFormatException e) {
            return;
        }
        // The holders first: in a fresh JVM, reaching one makes its Random (one step of the
        // uniquifier), which a game server's later game does not; the uniquifier is set
        // after, so both count from the same value.
        reseed("java.lang.Math$RandomNumberGeneratorHolder", mix(seed + 2));
        reseed("java.lang.StrictMath$RandomNumberGeneratorHolder", mix(seed + 3));
        try {
            Field f = java.util.Collections.class.getDeclaredField("r");
            f.setAccessible(true);
            f.set(null, null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // Not reachable: left as it is.
        }
        atomic(java.util.concurrent.ThreadLocalRandom.class, "seeder", mix(seed + 1));
        // Never 0: the uniquifier multiplies itself, and 0 would give every Random one seed.
        atomic(Random.class, "seedUniquifier", mix(seed) | 1);
    }

    private static void atomic(Class<?> owner, String name, long value) {
        try {
            Field f = owner.getDeclaredField(name);
            f.setAccessible(true);
            ((AtomicLong) f.get(null)).set(value);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // Not reachable: left as it is.
        }
    }

    private static void reseed(String holder, long value) {
        try {
            Field f = Class.forName(holder).getDeclaredField("randomNumberGenerator");
            f.setAccessible(true);
            ((Random) f.get(null)).setSeed(value);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // Not reachable: left as it is.
        }
    }

    /// SplitMix64's finaliser: nearby seeds give unrelated games.
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
