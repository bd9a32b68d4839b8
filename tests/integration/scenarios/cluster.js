// A Node.js cluster for the scenario matrix: node cluster.js PORT WORKERS. The primary forks the
// workers at once (before any observer starts) and, with round-robin scheduling, accepts every
// connection itself and hands it to a worker, which serves it. Prints 'ready' on stderr once
// every worker listens; SIGTERM stops the workers, then the primary.
'use strict';
const cluster = require('cluster');
const http = require('http');

const port = Number(process.argv[2]);
const workers = Number(process.argv[3] || 2);

cluster.schedulingPolicy = cluster.SCHED_RR;
if (cluster.isPrimary) {
	let up = 0;
	for (let i = 0; i < workers; i++)
		cluster.fork();
	cluster.on('listening', () => {
		if (++up === workers)
			console.error('ready cluster ' + port + ' primary ' + process.pid);
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
