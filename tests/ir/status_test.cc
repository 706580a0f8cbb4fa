#include "ir/status.h"

#include <gtest/gtest.h>

namespace sy {
namespace {

TEST(Status, WithContext_PrefixesTheMessageAndKeepsTheCode) {
  Status s = OutOfRange("index 7").with_context("Gather (node 'g')");
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(s.message(), "Gather (node 'g'): index 7");
  EXPECT_TRUE(OkStatus().with_context("anything").ok());
}

TEST(Status, WithContext_AlreadyThere_IsNotRepeated) {
  Status s = InvalidArgument("Add (node '#0'): input types differ").with_context("Add (node '#0')");
  EXPECT_EQ(s.message(), "Add (node '#0'): input types differ");
  // Only a whole prefix followed by ':' counts.
  EXPECT_EQ(InvalidArgument("Add (node '#0')x").with_context("Add (node '#0')").message(),
            "Add (node '#0'): Add (node '#0')x");
}

TEST(Status, NewCodes_HaveNames) {
  EXPECT_STREQ(status_code_name(StatusCode::kDeadlineExceeded), "deadline exceeded");
  EXPECT_STREQ(status_code_name(StatusCode::kCancelled), "cancelled");
  EXPECT_EQ(Cancelled("stop").code(), StatusCode::kCancelled);
  EXPECT_EQ(DeadlineExceeded("late").code(), StatusCode::kDeadlineExceeded);
}

}  // namespace
}  // namespace sy
