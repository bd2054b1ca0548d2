import { Judgment } from '../definition/judgment.decorator';
import { Likelihood } from '../questions/likelihood';
import { assessQueueName, connectionOf } from './assess-queues';

describe('a queue per connection', () => {
  it("names the default connection's queue as the one assess queue was named, and another's after its connection", () => {
    expect(assessQueueName('judgment-assess', 'jev', 'jev')).toBe('judgment-assess');
    expect(assessQueueName('judgment-assess', 'openai', 'jev')).toBe('judgment-assess-openai');
    // BullMQ refuses a `:` in a queue name.
    expect(assessQueueName('judgment-assess', 'eu:west', 'jev')).toBe('judgment-assess-eu%3Awest');
  });

  it("routes by the instance's engine(), then @Judgment({ engine }), then the default connection", () => {
    @Judgment({ name: 'routed-plain' })
    class Plain {
      evidence() {
        return { text: 'x' };
      }
      questions() {
        return { q: Likelihood.that('Is it?') };
      }
    }
    @Judgment({ name: 'routed-declared', engine: 'openai' })
    class Declared extends Plain {}
    class Chosen extends Declared {
      engine() {
        return 'laya';
      }
    }
    expect(connectionOf(new Plain(), 'jev')).toBe('jev');
    expect(connectionOf(new Declared(), 'jev')).toBe('openai');
    expect(connectionOf(new Chosen(), 'jev')).toBe('laya');
  });
});
