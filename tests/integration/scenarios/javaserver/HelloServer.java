// SPDX-License-Identifier: MIT
// A JVM HTTP server for the scenario matrix, on the JDK's own com.sun.net.httpserver (no other
// library): "hello, scenario" to every request, keep-alive, a pool of worker threads. Its access
// log is the ground truth of the request counts: one line per request answered, the handler's
// time in seconds (the form of nginx's $request_time that findings.py check_access_log reads).
//
//   java -cp DIR HelloServer PORT ACCESS_LOG [THREADS]
//
// Prints "listening PORT" on stderr once it serves; SIGTERM stops it (the log is flushed per line).
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.FileWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

public final class HelloServer {
	private static final byte[] BODY = "hello, scenario\n".getBytes(StandardCharsets.US_ASCII);

	public static void main(String[] args) throws IOException {
		int port = Integer.parseInt(args[0]);
		PrintWriter log = new PrintWriter(new FileWriter(args[1], true), false);
		int threads = args.length > 2 ? Integer.parseInt(args[2]) : 4;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 1024);
		server.createContext("/", (HttpExchange ex) -> {
			long t0 = System.nanoTime();
			ex.getRequestBody().readAllBytes();
			ex.getResponseHeaders().set("Content-Type", "text/plain");
			ex.sendResponseHeaders(200, BODY.length);
			try (OutputStream os = ex.getResponseBody()) {
				os.write(BODY);
			}
			double secs = (System.nanoTime() - t0) / 1e9;
			synchronized (log) {
				log.printf(Locale.ROOT, "%.6f%n", secs);
				log.flush();
			}
		});
		server.setExecutor(pool);
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			synchronized (log) {
				log.flush();
			}
		}));
		server.start();
		System.err.println("listening " + port);
	}
}
