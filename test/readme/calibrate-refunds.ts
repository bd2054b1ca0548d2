import { Calibration, LabelledCase } from 'nestjs-judgment/calibration';
import { RefundAbuse } from './refund-abuse.judgment';
import { RefundDecision, RefundOutcome } from './refund.decision';
import { Refund } from './refund.entity';

/** Measures RefundDecision against labelled cases: a labelled dataset file, or cases built in code. */
export async function calibrateRefunds(calibration: Calibration, datasetPath: string) {
  const fromFile = await calibration.for(RefundAbuse).fromDataset(datasetPath).decisions(RefundDecision).run();

  const refund = Object.assign(new Refund(), { item: 'Mixer', amount: 60, explanation: 'Motor burnt out on day two.' });
  const inCode = await calibration
    .for(RefundAbuse)
    .cases([LabelledCase.of(new RefundAbuse(refund), RefundOutcome.Approve, { truth: { abusive: false } })])
    .run();

  return { fromFile, inCode };
}
