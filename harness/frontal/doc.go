// Package frontal holds the tests that run the corpus in its three
// topologies, (a) Caddy alone, (b) nginx as the frontal of Caddy on loopback
// and (c) nginx alone, and hold them to one contract: the conformance probe
// passes on each, and the same few thousand requests (resources, absent
// references, hostile targets, with and without the secret) get the same
// status and the same bytes from all three, but for the differences nginx
// cannot avoid, each written down with the test that observes it.
//
// It also holds the faults the corpus must survive, each a test that
// measures and serves nothing wrong: a bounded load, reloads under that load
// (a new secret list, then a tampered tree that must be refused), the corpus
// killed and restarted behind nginx, Caddy restarted and crashed under load
// with its listening socket held as deploy/'s socket unit holds it, one of
// two replicas behind nginx killed at a time, slow clients, hostile targets next
// to a canary file that must never come back, and the HTTP/2 window attack
// with the replies Go's HTTP/2 server writes itself.
//
// The tests record their figures. With PROVEIT_RELIABILITY_REPORT naming a
// file (make reliability sets docs/reliability.md), a passing run writes
// them there, with the residual differences of nginx.
//
// The package has no code outside its tests: the servers come from
// harness/servertest, the vhost from tools/nginxconf, the checks from
// tools/probe.
package frontal
