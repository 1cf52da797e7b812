// broadside's game server for a Java program in dialogue scenarios: one JVM plays every game
// of a submission, one after the other.
//
//   java ... -cp boot broadside_launch.Serve CLASSES MAIN [ARGS...]
//
// It speaks broadside's game-server protocol (specs/protocol.md, "Game servers"). It reads
// one line per game on standard input, `game<TAB>IN<TAB>OUT<TAB>ERR` (three FIFOs
// broadside made) and, when the game has one, `<TAB>` its environment as JSON (for Java only
// the game's seed, which seeds the JDK's randomness as under `Launch`: BroadsideSeed.java),
// opens them, says `started` on standard output, and runs MAIN's `main` as
// the `java` launcher would, on a thread named `main` with System.in, System.out and
// System.err swapped for the game's streams:
//
// - MAIN and every class of the submission are loaded afresh for each game by a class loader
//   of its own over CLASSES, so no static field outlives its game;
// - a call of `System.exit(n)` in the submission's classes is redirected (one constant-pool
//   entry rewritten as the class is loaded) to `Exit.exit(n)`, which ends the game with code
//   n: nothing the program prints afterwards is kept, and the `Error` it throws unwinds the
//   game's threads;
// - an uncaught exception on `main` is printed as the JVM prints it (this server's frames cut)
//   and ends the game with code 1 once every other non-daemon thread of the game has ended;
// - each time a read of System.in would wait, System.out and System.err are flushed and a
//   byte is written on the descriptor BROADSIDE_READ_FD names, as under `Launch`.
//
// When the game has ended it says `end CODE` and waits for the next. A game that leaves a
// thread running (a daemon, or a thread that ignores the end of its game) cannot be undone
// in this JVM: the server then says `end CODE taint` and halts, and broadside starts another
// for the next game. `Runtime.exit`, `Runtime.halt` or a crash end the JVM itself: that is
// the game's end, as for a JVM of its own.
package broadside_launch;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.security.cert.Certificate;
import java.util.Arrays;
import java.util.Collections;
import java.util.Enumeration;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.TimeZone;

public final class Serve {
    private Serve() {}

    /// The game being played, if any.
    static volatile Game current;

    public static void main(String[] args) throws Exception {
        PrintStream reply = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
        BufferedReader control = new BufferedReader(new InputStreamReader(
                new FileInputStream(FileDescriptor.in), StandardCharsets.UTF_8));
        String fd = System.getenv("BROADSIDE_READ_FD");
        FileOutputStream said = fd == null ? null : Launch.descriptor(Integer.parseInt(fd));
        File classes = new File(args[0]).getAbsoluteFile();
        String main = args[1];
        String[] rest = Arrays.copyOfRange(args, 2, args.length);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            Game g = current;
            if (g != null) {
                g.flush();
            }
        }));
        // What a game may change for the whole JVM, put back after each.
        Properties properties = (Properties) System.getProperties().clone();
        Locale locale = Locale.getDefault();
        TimeZone zone = TimeZone.getDefault();
        String line;
        while ((line = control.readLine()) != null) {
            String[] f = line.split("\t");
            if (f.length < 4 || !f[0].equals("game")) {
                continue;
            }
            Set<Thread> before = Thread.getAllStackTraces().keySet();
            Game g = new Game(f[1], f[2], f[3], said);
            // The JDK's shared randomness, seeded for this game as a JVM of its own would be.
            Seed.plant(f.length > 4 ? Seed.fromJson(f[4]) : null);
            reply.println("started");
            int code = g.play(classes, main, rest);
            boolean clean = g.settle(before);
            current = null;
            System.setProperties((Properties) properties.clone());
            Locale.setDefault(locale);
            TimeZone.setDefault(zone);
            reply.println("end " + code + (clean ? "" : " taint"));
            if (!clean) {
                Runtime.getRuntime().halt(0);
            }
        }
    }

    /// `Exit.exit`: ends the game being played with `status`.
    static void exitGame(int status) {
        Game g = current;
        if (g == null || !g.owns(Thread.currentThread())) {
            Runtime.getRuntime().exit(status);
            return;
        }
        g.exit(status);
        throw new Exit.Stop();
    }

    /// One game: its streams, its threads, how it ended.
    static final class Game {
        private final FileInputStream in;
        private final Gate out;
        private final Gate err;
        private final FileOutputStream said;
        private final Threads threads;
        private Thread main;
        private Integer exitCode;
        private boolean failed;
        private boolean mainDone;
        private final Object ended = new Object();

        Game(String inPath, String outPath, String errPath, FileOutputStream said) throws IOException {
            this.in = new FileInputStream(inPath);
            this.out = new Gate(new FileOutputStream(outPath));
            this.err = new Gate(new FileOutputStream(errPath));
            this.said = said;
            this.threads = new Threads();
        }

        boolean owns(Thread t) {
            for (ThreadGroup g = t.getThreadGroup(); g != null; g = g.getParent()) {
                if (g == threads) {
                    return true;
                }
            }
            return false;
        }

        /// Plays the game; its exit code.
        int play(File classes, String mainName, String[] args) throws InterruptedException {
            Charset cs = Charset.defaultCharset();
            System.setIn(new BufferedInputStream(new Launch.Announcing(in, said)));
            System.setOut(new PrintStream(new BufferedOutputStream(out, 128), true, cs));
            System.setErr(new PrintStream(new BufferedOutputStream(err, 128), true, cs));
            current = this;
            GameLoader loader = new GameLoader(classes, Serve.class.getClassLoader());
            main = new Thread(threads, () -> run(loader, mainName, args), "main", 8L << 20);
            main.setContextClassLoader(loader);
            main.start();
            synchronized (ended) {
                while (exitCode == null && !mainDone) {
                    ended.wait(50);
                }
            }
            // The JVM ends when its last non-daemon thread does.
            while (exitCode == null && nonDaemonAlive()) {
                synchronized (ended) {
                    ended.wait(2);
                }
            }
            flush();
            synchronized (ended) {
                return exitCode != null ? exitCode : failed ? 1 : 0;
            }
        }

        private void run(ClassLoader loader, String mainName, String[] args) {
            try {
                MethodHandle m = find(loader, mainName);
                if (m == null) {
                    System.err.println("Error: Main method not found in class " + mainName
                            + ", please define the main method as:\n   public static void main(String[] args)\n"
                            + "or a JavaFX application class must extend javafx.application.Application");
                    exit(1);
                    return;
                }
                m.invokeExact(args);
            } catch (Exit.Stop s) {
                // The game ended by System.exit.
            } catch (Throwable t) {
                Launch.cut(t);
                synchronized (ended) {
                    failed = true;
                }
                threads.uncaughtException(Thread.currentThread(), t);
            } finally {
                synchronized (ended) {
                    mainDone = true;
                    ended.notifyAll();
                }
            }
        }

        private static MethodHandle find(ClassLoader loader, String name) throws ClassNotFoundException {
            Class<?> c = Class.forName(name, false, loader);
            try {
                Method m = c.getMethod("main", String[].class);
                if (!Modifier.isStatic(m.getModifiers()) || m.getReturnType() != void.class) {
                    return null;
                }
                m.setAccessible(true);
                return MethodHandles.lookup().unreflect(m);
            } catch (NoSuchMethodException | SecurityException | IllegalAccessException e) {
                return null;
            }
        }

        void exit(int status) {
            flush();
            synchronized (ended) {
                if (exitCode == null) {
                    exitCode = status;
                }
                out.shut();
                err.shut();
                ended.notifyAll();
            }
        }

        void flush() {
            System.out.flush();
            System.err.flush();
        }

        private boolean nonDaemonAlive() {
            Thread[] all = new Thread[threads.activeCount() + 8];
            int n = threads.enumerate(all, true);
            for (int i = 0; i < n; i++) {
                if (all[i].isAlive() && !all[i].isDaemon()) {
                    return true;
                }
            }
            return false;
        }

        /// Closes the game's streams and waits a little for its threads to unwind: whether
        /// none is left, in its group or elsewhere (no thread alive that was not alive
        /// before the game, `before`), so the JVM can play another game.
        // ThreadGroup.destroy() is deprecated for removal (a no-op from JDK 19), but on the
        // JDK 17 the courses use it still frees the finished game's group: kept, on purpose.
        @SuppressWarnings("removal")
        boolean settle(Set<Thread> before) throws InterruptedException {
            out.shut();
            err.shut();
            out.closeQuietly();
            err.closeQuietly();
            try {
                in.close();
            } catch (IOException e) {
                // Closed already.
            }
            long deadline = System.nanoTime() + 200_000_000L;
            while (true) {
                Thread[] all = new Thread[threads.activeCount() + 8];
                int n = threads.enumerate(all, true);
                Thread alive = null;
                for (int i = 0; i < n && alive == null; i++) {
                    alive = all[i].isAlive() ? all[i] : null;
                }
                long left = deadline - System.nanoTime();
                if (alive == null) {
                    main.setContextClassLoader(null);
                    main = null;
                    for (Thread t : Thread.getAllStackTraces().keySet()) {
                        if (t.isAlive() && !before.contains(t)) {
                            return false;
                        }
                    }
                    if (threads.exhausted) {
                        return false;
                    }
                    try {
                        threads.destroy();
                    } catch (IllegalThreadStateException e) {
                        return false;
                    }
                    return true;
                }
                if (left <= 0) {
                    return false;
                }
                alive.join(Math.max(1, left / 1_000_000));
            }
        }
    }

    /// A game's threads. A class of its own, holding nothing of the game: the JVM keeps a
    /// thread group until it is destroyed, and an inner class would keep the game with it.
    static final class Threads extends ThreadGroup {
        /// An `OutOfMemoryError` reached the top of a thread: the JVM has used up the traces
        /// it keeps for them, and its heap may be left full.
        volatile boolean exhausted;

        Threads() {
            super("main");
        }

        @Override
        public void uncaughtException(Thread t, Throwable e) {
            if (e instanceof OutOfMemoryError) {
                exhausted = true;
            }
            if (!(e instanceof Exit.Stop)) {
                super.uncaughtException(t, e);
            }
        }
    }

    /// A game's output: writes go through until the game has ended, then are dropped.
    static final class Gate extends FilterOutputStream {
        private volatile boolean shut;

        Gate(OutputStream out) {
            super(out);
        }

        void shut() {
            shut = true;
        }

        void closeQuietly() {
            try {
                out.close();
            } catch (IOException e) {
                // The reader has gone.
            }
        }

        @Override
        public void write(int b) throws IOException {
            if (!shut) {
                out.write(b);
            }
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (!shut) {
                out.write(b, off, len);
            }
        }

        @Override
        public void flush() throws IOException {
            if (!shut) {
                out.flush();
            }
        }

        @Override
        public void close() {
            // The game's end closes it.
        }
    }

    /// Loads a game's classes afresh from the compiled submission, `System.exit` redirected.
    static final class GameLoader extends ClassLoader {
        private final File root;
        private final ProtectionDomain domain;

        GameLoader(File root, ClassLoader parent) {
            // Unnamed: a named loader shows in every frame of a trace (`game//Main.main`).
            super(parent);
            this.root = root;
            URL at = null;
            try {
                at = root.toURI().toURL();
            } catch (MalformedURLException e) {
                // No code source, then.
            }
            this.domain = new ProtectionDomain(new CodeSource(at, (Certificate[]) null), null, this, null);
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            File f = new File(root, name.replace('.', '/') + ".class");
            byte[] b;
            try {
                b = Files.readAllBytes(f.toPath());
            } catch (IOException e) {
                throw new ClassNotFoundException(name);
            }
            b = Exit.redirect(b);
            int dot = name.lastIndexOf('.');
            if (dot > 0 && getDefinedPackage(name.substring(0, dot)) == null) {
                definePackage(name.substring(0, dot), null, null, null, null, null, null, null);
            }
            return defineClass(name, b, 0, b.length, domain);
        }

        @Override
        protected URL findResource(String name) {
            File f = new File(root, name);
            if (f.isFile()) {
                try {
                    return f.toURI().toURL();
                } catch (MalformedURLException e) {
                    return null;
                }
            }
            return null;
        }

        @Override
        protected Enumeration<URL> findResources(String name) {
            URL u = findResource(name);
            return u == null ? Collections.emptyEnumeration() : Collections.enumeration(Collections.singletonList(u));
        }
    }

    /// Where a game's `System.exit` goes.
    public static final class Exit {
        private Exit() {}

        /// Ends the game being played with `status` (outside a game: the JVM).
        public static void exit(int status) {
            exitGame(status);
        }

        /// Unwinds a game's thread after `System.exit`; an `Error`, so the `catch (Exception
        /// e)` of a game loop lets it through.
        static final class Stop extends Error {
            private static final long serialVersionUID = 1L;

            Stop() {
                super(null, null, false, false);
            }
        }

        private static final byte[] SYSTEM = "java/lang/System".getBytes(StandardCharsets.US_ASCII);
        private static final byte[] EXIT = "exit".getBytes(StandardCharsets.US_ASCII);
        private static final byte[] INT_VOID = "(I)V".getBytes(StandardCharsets.US_ASCII);
        private static final byte[] HERE = "broadside_launch/Serve$Exit".getBytes(StandardCharsets.US_ASCII);

        /// The class file `b` with every `java/lang/System.exit(I)V` method reference pointed
        /// at this class: two constant-pool entries added at the end, one class index
        /// changed, nothing else moved. A file it cannot read is returned as it is.
        static byte[] redirect(byte[] b) {
            try {
                if (b.length < 10 || u4(b, 0) != 0xCAFEBABE) {
                    return b;
                }
                int count = u2(b, 8);
                int[] at = new int[count];
                int p = 10;
                for (int i = 1; i < count; i++) {
                    at[i] = p;
                    switch (b[p]) {
                        case 1: p += 3 + u2(b, p + 1); break;
                        case 3: case 4: p += 5; break;
                        case 5: case 6: p += 9; i++; break;
                        case 7: case 8: case 16: case 19: case 20: p += 3; break;
                        case 15: p += 4; break;
                        case 9: case 10: case 11: case 12: case 17: case 18: p += 5; break;
                        default: return b;
                    }
                }
                int end = p;
                boolean any = false;
                int[] refs = new int[count];
                int nrefs = 0;
                for (int i = 1; i < count; i++) {
                    if (at[i] == 0 || b[at[i]] != 10) {
                        continue;
                    }
                    int cls = u2(b, at[i] + 1);
                    int nat = u2(b, at[i] + 3);
                    if (b[at[cls]] == 7 && utf(b, at, u2(b, at[cls] + 1), SYSTEM)
                            && b[at[nat]] == 12 && utf(b, at, u2(b, at[nat] + 1), EXIT)
                            && utf(b, at, u2(b, at[nat] + 3), INT_VOID)) {
                        refs[nrefs++] = i;
                        any = true;
                    }
                }
                if (!any || count + 2 > 0xFFFF) {
                    return b;
                }
                ByteArrayOutputStream o = new ByteArrayOutputStream(b.length + HERE.length + 8);
                byte[] head = Arrays.copyOf(b, end);
                head[8] = (byte) ((count + 2) >> 8);
                head[9] = (byte) (count + 2);
                int classIndex = count + 1;
                for (int k = 0; k < nrefs; k++) {
                    int q = at[refs[k]] + 1;
                    head[q] = (byte) (classIndex >> 8);
                    head[q + 1] = (byte) classIndex;
                }
                o.write(head, 0, head.length);
                o.write(1);
                o.write(HERE.length >> 8);
                o.write(HERE.length);
                o.write(HERE, 0, HERE.length);
                o.write(7);
                o.write(count >> 8);
                o.write(count);
                o.write(b, end, b.length - end);
                return o.toByteArray();
            } catch (RuntimeException e) {
                return b;
            }
        }

        private static boolean utf(byte[] b, int[] at, int i, byte[] want) {
            if (i <= 0 || i >= at.length || at[i] == 0 || b[at[i]] != 1 || u2(b, at[i] + 1) != want.length) {
                return false;
            }
            for (int k = 0; k < want.length; k++) {
                if (b[at[i] + 3 + k] != want[k]) {
                    return false;
                }
            }
            return true;
        }

        private static int u2(byte[] b, int p) {
            return ((b[p] & 0xFF) << 8) | (b[p + 1] & 0xFF);
        }

        private static int u4(byte[] b, int p) {
            return (u2(b, p) << 16) | u2(b, p + 2);
        }
    }
}
