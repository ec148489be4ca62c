CREATE TABLE "api_token_buckets" (
	"token_id" bigint PRIMARY KEY NOT NULL,
	"tokens" double precision NOT NULL,
	"refilled_at" timestamp with time zone NOT NULL,
	"granted" boolean NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "rate_per_second" double precision;--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "rate_burst" integer;--> statement-breakpoint
ALTER TABLE "api_token_buckets" ADD CONSTRAINT "api_token_buckets_token_id_api_tokens_id_fk" FOREIGN KEY ("token_id") REFERENCES "public"."api_tokens"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_rate_per_second_range" CHECK ("api_tokens"."rate_per_second" is null or ("api_tokens"."rate_per_second" >= 0.01 and "api_tokens"."rate_per_second" <= 100000));--> statement-breakpoint
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_rate_burst_range" CHECK ("api_tokens"."rate_burst" is null or "api_tokens"."rate_burst" between 1 and 1000000);
--> statement-breakpoint
-- Written on every agent request: no WAL for it (a crash empties it, which only refills every token's bucket).
ALTER TABLE "api_token_buckets" SET UNLOGGED;
