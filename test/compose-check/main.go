// Command compose-check loads a Compose file with compose-go, the loader `docker compose config`
// itself uses (schema validation, interpolation, normalization, consistency checks), so the file
// is checked for real on machines whose docker CLI has no compose plugin.
//
//	compose-check docker-compose.yml   prints the project's services, or the loader's error and exits 1
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/compose-spec/compose-go/v2/cli"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: compose-check <compose-file>")
		os.Exit(2)
	}
	file, err := filepath.Abs(os.Args[1])
	if err != nil {
		fail(err)
	}
	options, err := cli.NewProjectOptions([]string{file}, cli.WithWorkingDirectory(filepath.Dir(file)), cli.WithOsEnv, cli.WithDotEnv)
	if err != nil {
		fail(err)
	}
	project, err := options.LoadProject(context.Background())
	if err != nil {
		fail(err)
	}
	names := project.ServiceNames()
	sort.Strings(names)
	fmt.Printf("project %s: %d services: %v\n", project.Name, len(names), names)
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "compose-check: %v\n", err)
	os.Exit(1)
}
