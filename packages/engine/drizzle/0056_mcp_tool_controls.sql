CREATE TABLE "mcp_tool_controls" (
	"server_name" text NOT NULL,
	"tool" text NOT NULL,
	"price_micros" bigint,
	"rate_calls" integer,
	"rate_period_ms" integer,
	"max_identical_calls" integer,
	"updated_by" text NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "mcp_tool_controls_pkey" PRIMARY KEY("server_name","tool"),
	CONSTRAINT "mcp_tool_controls_rate_whole" CHECK (("mcp_tool_controls"."rate_calls" is null) = ("mcp_tool_controls"."rate_period_ms" is null)),
	CONSTRAINT "mcp_tool_controls_sets_something" CHECK ("mcp_tool_controls"."price_micros" is not null or "mcp_tool_controls"."rate_calls" is not null or "mcp_tool_controls"."max_identical_calls" is not null)
);
