import { configure } from '@testing-library/react';

// The machines that run the suite are shared and often loaded: a page that renders in 100 ms alone can
// take seconds there. Waiting longer only costs time when a test is failing anyway.
configure({ asyncUtilTimeout: 5_000 });
