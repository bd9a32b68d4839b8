// SPDX-License-Identifier: MIT
// A JVM HTTP server for the scenario matrix, on the JDK's own com.sun.net.httpserver (no other
// library): "hello, scenario" to every request, keep-alive, a pool of worker threads. Its access
// log is the ground truth of the request counts: one line per request answered, the handler's
// time in seconds (the form of nginx's $request_time that findings.py check_access_log reads).
//
//   java -cp DIR HelloServer PORT ACCESS_LOG [THREADS]
//
// Before it says so, it warms itself up: WARMUP requests of its own on 4 keep-alive connections
// (4 ports, not logged), so that a burst of requests meets compiled code, not a cold JVM that
// takes seconds to answer the first thousand. Prints "listening PORT" on stderr once warm; SIGTERM
// stops it (the log is flushed per line).
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.FileWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

public final class HelloServer {
	private static final byte[] BODY = "hello, scenario\n".getBytes(StandardCharsets.US_ASCII);
	private static final int WARMUP = 2000;
	private static final AtomicBoolean WARM = new AtomicBoolean(false);

	// n requests on one keep-alive connection, each answer read to the end of its body
	private static void warm(int port, int n) throws IOException {
		byte[] req = "GET / HTTP/1.1\r\nHost: warmup\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
		try (Socket s = new Socket("127.0.0.1", port)) {
			OutputStream out = s.getOutputStream();
			InputStream in = s.getInputStream();
			byte[] buf = new byte[4096];
			for (int i = 0; i < n; i++) {
				out.write(req);
				String got = "";
				while (!got.endsWith("hello, scenario\n")) {
					int r = in.read(buf);
					if (r < 0)
						throw new IOException("warm-up: the connection closed");
					got += new String(buf, 0, r, StandardCharsets.US_ASCII);
				}
			}
		}
	}

	public static void main(String[] args) throws IOException {
		int port = Integer.parseInt(args[0]);
		PrintWriter log = new PrintWriter(new FileWriter(args[1], true), false);
		int threads = args.length > 2 ? Integer.parseInt(args[2]) : 4;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 1024);
		server.createContext("/", (HttpExchange ex) -> {
			long t0 = System.nanoTime();
			// a warm-up request is one that came before the warm-up ended: its client
			// can have its answer, and the warm-up be over, before this handler logs
			boolean logged = WARM.get();
			ex.getRequestBody().readAllBytes();
			ex.getResponseHeaders().set("Content-Type", "text/plain");
			ex.sendResponseHeaders(200, BODY.length);
			try (OutputStream os = ex.getResponseBody()) {
				os.write(BODY);
			}
			double secs = (System.nanoTime() - t0) / 1e9;
			if (!logged)
				return;
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
		Thread[] ws = new Thread[4];
		for (int i = 0; i < ws.length; i++) {
			ws[i] = new Thread(() -> {
				try {
					warm(port, WARMUP / ws.length);
				} catch (IOException e) {
					throw new RuntimeException(e);
				}
			});
			ws[i].start();
		}
		for (Thread w : ws) {
			try {
				w.join();
			} catch (InterruptedException e) {
				throw new RuntimeException(e);
			}
		}
		WARM.set(true);
		System.err.println("listening " + port);
	}
}
