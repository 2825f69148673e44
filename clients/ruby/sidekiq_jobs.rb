# Job classes for sidekiq_worker.rb; the sidekiq process loads this file.
require 'sidekiq'
require 'sidekiq/api'

Redis.silence_deprecations = true if Redis.respond_to?(:silence_deprecations=)
Sidekiq.configure_server do |c|
  c.redis = { url: "redis://#{ENV.fetch('CAIRN_ADDR')}/0" }
  # Poll for scheduled jobs and retries every second or so (the default
  # waits 10-15 s at start and polls every 5-15 s), to keep the flow short.
  c.options[:poll_interval_average] = 1
end
Sidekiq.configure_client { |c| c.redis = { url: "redis://#{ENV.fetch('CAIRN_ADDR')}/0" } }

# AddJob stores a + b where the flow can read it.
class AddJob
  include Sidekiq::Worker
  sidekiq_options queue: 'cairn', retry: false

  def perform(id, a, b)
    Sidekiq.redis { |r| r.hset('sk:results', id, a + b) }
  end
end

# FlakyJob fails on its first run and succeeds when retried.
class FlakyJob
  include Sidekiq::Worker
  sidekiq_options queue: 'cairn', retry: 1
  sidekiq_retry_in { |_count, _exc| 1 }

  def perform(id)
    runs = Sidekiq.redis { |r| r.hincrby('sk:flaky', id, 1) }
    raise "first run of #{id} fails" if runs == 1

    Sidekiq.redis { |r| r.hset('sk:results', id, 'recovered') }
  end
end
