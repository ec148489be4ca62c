-- Counter stripes: a 5-second slice's retry-pool usage and breaker counts spread over a row per writing connection, so concurrent begins and finishes of one step do not queue on one row's lock until each other's commits. Readers sum every stripe.
ALTER TABLE "retry_pool_usage" ADD COLUMN "stripe" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "breaker_slices" ADD COLUMN "stripe" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "retry_pool_usage" DROP CONSTRAINT "retry_pool_usage_pkey";
--> statement-breakpoint
ALTER TABLE "retry_pool_usage" ADD CONSTRAINT "retry_pool_usage_pkey" PRIMARY KEY("agent","step","slice_start","stripe");--> statement-breakpoint
ALTER TABLE "breaker_slices" DROP CONSTRAINT "breaker_slices_pkey";
--> statement-breakpoint
ALTER TABLE "breaker_slices" ADD CONSTRAINT "breaker_slices_pkey" PRIMARY KEY("target","slice_start","stripe");