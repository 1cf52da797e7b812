// broadside's launcher for a Java program in dialogue scenarios:
//
//   java --add-opens java.base/java.io=ALL-UNNAMED -javaagent:boot/seed.jar -cp classes:boot broadside_launch.Launch MAIN [ARGS...]
//
// Runs MAIN's `public static void main(String[])` as the `java` launcher would (the class is
// initialised by the call, an uncaught exception ends the program with the JVM's own trace,
// from which this launcher's frame is cut). Started with BROADSIDE_START_AHEAD=1, it first
// reads one line (the game's environment as JSON) before it loads MAIN: broadside starts the
// next game's JVM while a game plays. Before MAIN loads, the JDK's shared randomness is seeded
// with the game's seed (BROADSIDE_SEED; see BroadsideSeed.java). When BROADSIDE_READ_FD names a descriptor,
// System.in is replaced, before MAIN loads, by a stream that, each time a read would wait (no
// byte in the pipe), first flushes System.out and System.err and writes one byte there: then
// broadside knows the program asks for a line instead of guessing it from the kernel. Over it
// sits a BufferedInputStream, as over the JVM's own System.in.
package broadside_launch;

import java.io.BufferedInputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;

public final class Launch {
    private Launch() {}

    public static void main(String[] args) throws Throwable {
        if ("1".equals(System.getenv("BROADSIDE_START_AHEAD"))) {
            Seed.plant(Seed.fromJson(waitForTheGame()));
        } else {
            Seed.plant(System.getenv("BROADSIDE_SEED"));
        }
        String fd = System.getenv("BROADSIDE_READ_FD");
        if (fd != null) {
            FileOutputStream said = descriptor(Integer.parseInt(fd));
            if (said != null) {
                System.setIn(new BufferedInputStream(new Announcing(said)));
            }
        }
        Class<?> main = Class.forName(args[0], false, Launch.class.getClassLoader());
        MethodHandle run;
        try {
            Method m = main.getMethod("main", String[].class);
            if (!Modifier.isStatic(m.getModifiers()) || m.getReturnType() != void.class) {
                throw new NoSuchMethodException();
            }
            m.setAccessible(true);
            run = MethodHandles.lookup().unreflect(m);
        } catch (NoSuchMethodException | SecurityException | IllegalAccessException e) {
            System.err.println("Error: Main method not found in class " + args[0]
                    + ", please define the main method as:\n   public static void main(String[] args)\n"
                    + "or a JavaFX application class must extend javafx.application.Application");
            System.exit(1);
            return;
        }
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        try {
            run.invokeExact(rest);
        } catch (Throwable t) {
            cut(t);
            throw t;
        }
    }

    /// Started ahead of its game: reads the game's first line (its environment as JSON:
    /// for Java only the game's seed, `{"BROADSIDE_SEED":"…"}`) byte by byte, so nothing
    /// after it is taken from the pipe.
    private static String waitForTheGame() throws IOException {
        FileInputStream in = new FileInputStream(FileDescriptor.in);
        StringBuilder line = new StringBuilder();
        int b;
        while (true) {
            b = in.read();
            if (b < 0) {
                System.exit(0); // broadside stopped it before its game
            }
            if (b == '\n') {
                return line.toString();
            }
            if (line.length() < 4096) {
                line.append((char) b);
            }
        }
    }

    /// An output stream on descriptor `n`, or null.
    static FileOutputStream descriptor(int n) {
        try {
            FileDescriptor d = new FileDescriptor();
            Field f = FileDescriptor.class.getDeclaredField("fd");
            f.setAccessible(true);
            f.setInt(d, n);
            return new FileOutputStream(d);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /// Cuts from the end of `t`'s trace, and of its causes', every frame below the program's
    /// own: this launcher's, and the JDK's between it and the program (method handles, a
    /// class's initialisation, under the game server the game thread's `Thread.run`). The
    /// `java` launcher calls `main` from native code: nothing is printed below it.
    static void cut(Throwable t) {
        for (int depth = 0; t != null && depth < 64; t = t.getCause(), depth++) {
            StackTraceElement[] s = t.getStackTrace();
            int n = s.length;
            while (n > 0 && below(s[n - 1])) {
                n--;
            }
            if (n < s.length) {
                t.setStackTrace(Arrays.copyOf(s, n));
            }
        }
    }

    /// A frame of this launcher's or of the JDK's (a class in a named module: the
    /// submission's classes are in none).
    private static boolean below(StackTraceElement e) {
        return e.getClassName().startsWith("broadside_launch.") || e.getModuleName() != null;
    }

    static final class Announcing extends InputStream {
        private final FileInputStream in;
        private final FileOutputStream said;

        Announcing(FileOutputStream said) {
            this(new FileInputStream(FileDescriptor.in), said);
        }

        Announcing(FileInputStream in, FileOutputStream said) {
            this.in = in;
            this.said = said;
        }

        private void announce() {
            try {
                if (in.available() > 0) {
                    return;
                }
            } catch (IOException e) {
                // Not known: announce.
            }
            System.out.flush();
            System.err.flush();
            if (said == null) {
                return;
            }
            try {
                said.write('r');
            } catch (IOException e) {
                // broadside stopped listening, or the pipe is full: nothing to say.
            }
        }

        @Override
        public int read() throws IOException {
            announce();
            return in.read();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            announce();
            return in.read(b, off, len);
        }

        @Override
        public int available() throws IOException {
            return in.available();
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
