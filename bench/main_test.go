package bench

import "testing"

// TestMain closes what the benchmarks keep for the whole process: the
// etcd clusters of BenchmarkEtcdScheduler, each with a data directory of
// ~900 MB at 50,000 hosts that would otherwise stay in the temporary
// directory after every run.
func TestMain(m *testing.M) {
	m.Run()
	closeEtcdBenchClusters()
}
