package sqlite_test

import (
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
)

// TestAttachmentConformance runs the files contract on a fresh file.
func TestAttachmentConformance(t *testing.T) {
	brokertest.TestAttachments(t, func(t *testing.T) broker.Store { return openTemp(t) })
}
