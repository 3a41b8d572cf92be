module github.com/parleynet/parley/bench/workload

go 1.26.6
