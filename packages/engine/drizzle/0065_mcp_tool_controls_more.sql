ALTER TABLE "mcp_tool_controls" DROP CONSTRAINT "mcp_tool_controls_sets_something";--> statement-breakpoint
ALTER TABLE "mcp_tool_controls" ADD COLUMN "all_agents_rate_calls" integer;--> statement-breakpoint
ALTER TABLE "mcp_tool_controls" ADD COLUMN "all_agents_rate_period_ms" integer;--> statement-breakpoint
ALTER TABLE "mcp_tool_controls" ADD COLUMN "spend_limit_micros" bigint;--> statement-breakpoint
ALTER TABLE "mcp_tool_controls" ADD COLUMN "spend_limit_period_ms" integer;--> statement-breakpoint
ALTER TABLE "mcp_tool_controls" ADD COLUMN "unit_price_micros" bigint;--> statement-breakpoint
ALTER TABLE "mcp_tool_controls" ADD COLUMN "unit_field" text;--> statement-breakpoint
ALTER TABLE "mcp_tool_controls" ADD CONSTRAINT "mcp_tool_controls_all_agents_rate_whole" CHECK (("mcp_tool_controls"."all_agents_rate_calls" is null) = ("mcp_tool_controls"."all_agents_rate_period_ms" is null));--> statement-breakpoint
ALTER TABLE "mcp_tool_controls" ADD CONSTRAINT "mcp_tool_controls_spend_limit_whole" CHECK (("mcp_tool_controls"."spend_limit_micros" is null) = ("mcp_tool_controls"."spend_limit_period_ms" is null));--> statement-breakpoint
ALTER TABLE "mcp_tool_controls" ADD CONSTRAINT "mcp_tool_controls_unit_price_whole" CHECK (("mcp_tool_controls"."unit_price_micros" is null) = ("mcp_tool_controls"."unit_field" is null));--> statement-breakpoint
ALTER TABLE "mcp_tool_controls" ADD CONSTRAINT "mcp_tool_controls_sets_something" CHECK ("mcp_tool_controls"."price_micros" is not null or "mcp_tool_controls"."rate_calls" is not null or "mcp_tool_controls"."max_identical_calls" is not null
        or "mcp_tool_controls"."all_agents_rate_calls" is not null or "mcp_tool_controls"."spend_limit_micros" is not null
        or "mcp_tool_controls"."unit_price_micros" is not null);