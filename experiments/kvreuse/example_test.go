package kvreuse_test

import (
	"fmt"

	"github.com/tailbound/tailbound/experiments/kvreuse"
)

// Several figures written through one --plot path get the figure's label
// before the extension.
func ExamplePlotName() {
	fmt.Println(kvreuse.PlotName("out/ttft.svg", "nvme@4096", true))
	fmt.Println(kvreuse.PlotName("out/ttft.svg", "nvme@4096", false))
	// Output:
	// out/ttft-nvme-4096.svg
	// out/ttft.svg
}
