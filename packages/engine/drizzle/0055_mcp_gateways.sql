CREATE TABLE "mcp_gateway_instances" (
	"instance_id" uuid PRIMARY KEY NOT NULL,
	"server_name" text NOT NULL,
	"version" text NOT NULL,
	"config" jsonb NOT NULL,
	"reported_by" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mcp_tool_counts" (
	"server_name" text NOT NULL,
	"tool" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"outcome" text NOT NULL,
	"calls" bigint NOT NULL,
	CONSTRAINT "mcp_tool_counts_pkey" PRIMARY KEY("server_name","tool","hour","outcome"),
	CONSTRAINT "mcp_tool_counts_outcome_known" CHECK ("mcp_tool_counts"."outcome" in ('ran', 'replayed', 'passed_through', 'refused_unknown_tool', 'refused_arguments', 'refused_meta', 'refused_keyless', 'rate_limited', 'loop_stopped', 'waited', 'stopped', 'holdfast_failed'))
);
--> statement-breakpoint
CREATE INDEX "mcp_gateway_instances_last_seen_idx" ON "mcp_gateway_instances" USING btree ("last_seen_at");--> statement-breakpoint
CREATE INDEX "mcp_tool_counts_hour_idx" ON "mcp_tool_counts" USING btree ("hour");