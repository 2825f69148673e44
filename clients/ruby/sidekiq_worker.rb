# Sidekiq: jobs pushed by the client API, a sidekiq process runs them,
# including a scheduled job and one retried after failing. Takes the
# server's address (host:port) as its argument or from CAIRN_ADDR; prints
# a FAIL line and exits non-zero on failure.
ENV['CAIRN_ADDR'] = ARGV[0] if ARGV[0]
ENV['CAIRN_ADDR'] ||= '127.0.0.1:6379'
require 'tempfile'
require 'timeout'
require_relative 'sidekiq_jobs'

def fail!(msg)
  warn "FAIL: #{msg}"
  exit 1
end

def expect(got, want, what)
  fail!("#{what}: got #{got.inspect}, want #{want.inspect}") unless got == want
end

pid = nil
log = Tempfile.new('sidekiq-flow')
begin
  Timeout.timeout(90) do
    5.times { |i| AddJob.perform_async("add#{i}", i, i * 10) }
    AddJob.perform_in(1, 'scheduled', 20, 22)
    FlakyJob.perform_async('flaky')
    # The worker as users run it: the sidekiq command, its own process.
    pid = Process.spawn({ 'CAIRN_ADDR' => ENV['CAIRN_ADDR'] }, 'sidekiq', '-r', File.join(__dir__, 'sidekiq_jobs.rb'),
                        '-q', 'cairn', '-c', '2', '-t', '5', out: log, err: log)
    want = (0..4).to_h { |i| ["add#{i}", (i * 11).to_s] }.merge('scheduled' => '42', 'flaky' => 'recovered')
    got = {}
    deadline = Time.now + 60
    while Time.now < deadline
      got = Sidekiq.redis { |r| r.hgetall('sk:results') }
      break if got == want

      sleep 0.1
    end
    unless got == want
      log.rewind
      fail!("job results: got #{got.inspect}, want #{want.inspect}\nsidekiq log:\n#{log.read}")
    end
    expect(Sidekiq.redis { |r| r.hget('sk:flaky', 'flaky') }, '2', 'runs of the flaky job')
    expect(Sidekiq::RetrySet.new.size, 0, 'jobs left to retry')
    expect(Sidekiq::ScheduledSet.new.size, 0, 'jobs left scheduled')
    expect(Sidekiq::Queue.new('cairn').size, 0, 'jobs left in the queue')
  end
rescue Timeout::Error
  fail!('sidekiq_worker did not finish within 90s')
ensure
  if pid
    Process.kill('TERM', pid)
    begin
      Timeout.timeout(15) { Process.wait(pid) }
    rescue Timeout::Error
      Process.kill('KILL', pid)
      Process.wait(pid)
    end
  end
  log.close!
end
puts 'ok: sidekiq_worker'
