// A Node.js cluster for the scenario matrix: node cluster.js PORT WORKERS. The primary forks the
// workers at once (before any observer starts) and, with round-robin scheduling, accepts every
// connection itself and hands it to a worker, which serves it. Prints 'ready' on stderr once
// every worker listens and has been warmed up; SIGTERM stops the workers, then the primary.
'use strict';
const cluster = require('cluster');
const http = require('http');

const port = Number(process.argv[2]);
const workers = Number(process.argv[3] || 2);

cluster.schedulingPolicy = cluster.SCHED_RR;

// Warm the workers up before 'ready' (so before any observer starts): 2,000 requests on 8
// keep-alive connections. A cold V8 served the scenario's first second at a fraction of its
// speed (the driver's p90 at 1,000/s: 297 ms cold, 1.6 ms warm), a queue true of that second.
function warm(done) {
	const agent = new http.Agent({keepAlive: true, maxSockets: 8});
	let left = 2000, inflight = 0;
	const one = () => {
		if (left === 0) {
			if (inflight === 0) {
				agent.destroy();
				done();
			}
			return;
		}
		left--;
		inflight++;
		http.get({host: '127.0.0.1', port, path: '/warm', agent}, (res) => {
			res.resume();
			res.on('end', () => {
				inflight--;
				one();
			});
		}).on('error', (e) => {
			console.error('warm-up: ' + e.message);
			process.exit(1);
		});
	};
	for (let i = 0; i < 8; i++)
		one();
}
if (cluster.isPrimary) {
	let up = 0;
	for (let i = 0; i < workers; i++)
		cluster.fork();
	cluster.on('listening', () => {
		if (++up === workers)
			warm(() => console.error('ready cluster ' + port + ' primary ' + process.pid));
	});
	process.on('SIGTERM', () => {
		for (const id in cluster.workers)
			cluster.workers[id].kill();
		process.exit(0);
	});
} else {
	http.createServer((req, res) => {
		res.end('hello, scenario\n');
	}).listen(port, '127.0.0.1');
}
