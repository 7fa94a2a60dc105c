package blocksim

// sortIndices sorts request indices (non-negative int32) in place: an LSD
// radix sort in two passes of 16 bits through one scratch slice, linear in
// len(a). The ideal figures sort one last use per reused block, hundreds of
// thousands of them on a long trace, where a comparison sort was a visible
// share of the run.
func sortIndices(a []int32) {
	if len(a) < 256 {
		insertionSort(a)
		return
	}
	hi := int32(0)
	for _, v := range a {
		hi = max(hi, v)
	}
	tmp := make([]int32, len(a))
	src, dst := a, tmp
	for shift := uint(0); shift < 32 && hi>>shift > 0; shift += 16 {
		var count [1 << 16]int
		for _, v := range src {
			count[v>>shift&0xFFFF]++
		}
		pos := 0
		for d, c := range count {
			count[d] = pos
			pos += c
		}
		for _, v := range src {
			d := v >> shift & 0xFFFF
			dst[count[d]] = v
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
}

func insertionSort(a []int32) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}
