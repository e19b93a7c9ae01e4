package main

import (
	"context"
	"io"
)

func runScale(ctx context.Context, args []string, stdout, stderr io.Writer) error { return nil }
func runFault(ctx context.Context, args []string, stdout, stderr io.Writer) error { return nil }
