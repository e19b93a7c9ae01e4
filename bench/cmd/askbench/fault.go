package main

import (
	"context"
	"io"
)

func runFault(ctx context.Context, args []string, stdout, stderr io.Writer) error { return nil }
