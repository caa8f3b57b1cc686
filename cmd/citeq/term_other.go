//go:build !unix

package main

import "os"

// terminalWidth is 0 where the terminal's size is not read: output is fitted to $COLUMNS or
// defaultWidth.
func terminalWidth(*os.File) int { return 0 }
